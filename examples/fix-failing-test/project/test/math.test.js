import assert from "node:assert/strict";
import { test } from "node:test";
import { mean } from "../src/math.js";

test("mean of 2, 4 and 9 is 5", () => {
  assert.equal(mean([2, 4, 9]), 5);
});
