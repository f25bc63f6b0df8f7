// bench/code.mjs's stand-in for RegExp in a copy of Grep's search thread (a CommonJS module, as the thread is): re2js (a linear-time port of RE2) behind
// the part of RegExp's interface the thread uses — exec() with lastIndex for the g flag, index and [0] on a match.
// The pattern goes through re2js's own translation of JavaScript syntax (\uXXXX, [^], \cX…) and may use
// captureless lookbehinds (re2js's LOOKBEHINDS flag); what re2js cannot take throws, as a bad RegExp would.
const { RE2JS } = require("re2js");

class Re2RegExp {
  lastIndex = 0;
  #pattern;
  #global;
  #text;
  #matcher;

  constructor(source, flags = "") {
    let bits = RE2JS.LOOKBEHINDS;
    if (flags.includes("i")) bits |= RE2JS.CASE_INSENSITIVE;
    if (flags.includes("m")) bits |= RE2JS.MULTILINE;
    if (flags.includes("s")) bits |= RE2JS.DOTALL;
    this.#pattern = RE2JS.compile(RE2JS.translateRegExp(source), bits);
    this.#global = flags.includes("g");
  }

  exec(text) {
    if (this.#text !== text) [this.#text, this.#matcher] = [text, this.#pattern.matcher(text)];
    const from = this.#global ? this.lastIndex : 0;
    if (from > text.length || !this.#matcher.find(from)) {
      this.lastIndex = 0;
      return null;
    }
    const match = [this.#matcher.group()];
    match.index = this.#matcher.start();
    if (this.#global) this.lastIndex = this.#matcher.end();
    return match;
  }

  test(text) {
    return this.exec(text) !== null;
  }
}

module.exports = { Re2RegExp };
