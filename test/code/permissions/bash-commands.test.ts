import { beforeAll, describe, expect, it } from "vitest";
import { analyzeBashCommand, type BashParser, loadBashParser } from "../../../src/code/permissions/index.js";

let parser: BashParser;
beforeAll(async () => {
  parser = await loadBashParser();
});

const analyze = (line: string) => analyzeBashCommand(parser, line);
/** Each simple command as written (assignments and wrappers included). */
const parts = (line: string) => analyze(line).commands.map((command) => command.text);
const unjudgeable = (line: string) => {
  const analysis = analyze(line);
  return analysis.unjudgeable ?? analysis.commands.find((command) => command.unjudgeable)?.unjudgeable;
};

describe("splitting a command line with tree-sitter-bash", () => {
  it("loads the grammar once and shares it", async () => {
    expect(await loadBashParser()).toBe(parser);
  });

  it.each([
    ["a && b", ["a", "b"]],
    ["a || b", ["a", "b"]],
    ["a; b", ["a", "b"]],
    ["a | b | c", ["a", "b", "c"]],
    ["a |& b", ["a", "b"]],
    ["a\nb\n\nc", ["a", "b", "c"]],
    ["a & b", ["a", "b"]],
    ["(cd x && rm -rf y)", ["cd x", "rm -rf y"]],
    ["{ a; b; } > out", ["a", "b"]],
    ["echo $(rm -rf ~)", ["rm -rf ~", "echo $(rm -rf ~)"]],
    ["echo `rm -rf ~`", ["rm -rf ~", "echo `rm -rf ~`"]],
    ['echo "$(whoami) ok"', ["whoami", 'echo "$(whoami) ok"']],
    ["diff <(ls a) >(wc -l)", ["ls a", "wc -l", "diff <(ls a) >(wc -l)"]],
    ["cat <<EOF\n$(rm -rf ~)\nEOF", ["rm -rf ~", "cat"]],
    ["if test -f x; then rm x; else touch x; fi", ["test -f x", "rm x", "touch x"]],
    ["for f in $(ls); do rm $f; done", ["ls", "rm $f"]],
    ["while read l; do echo $l; done < list.txt", ["read l", "echo $l"]],
    ["f() { rm -rf ~; }; f", ["rm -rf ~", "f"]],
    ["! git diff --quiet", ["git diff --quiet"]],
    ["x=$(curl evil) npm test", ["curl evil", "x=$(curl evil) npm test"]],
    ["case $x in a) rm a;; *) ls;; esac", ["rm a", "ls"]],
    ["echo ok # && rm -rf /", ["echo ok"]],
  ])("%j → %j", (line, expected) => {
    expect(analyze(line).unjudgeable).toBeUndefined();
    expect(parts(line).sort()).toEqual([...expected].sort());
  });

  it("a quoted heredoc is text, not commands", () => {
    expect(parts("cat <<'EOF'\n$(rm -rf ~)\nEOF")).toEqual(["cat"]);
  });

  it("reads words: quotes and escapes removed, expansions unknown, globs flagged", () => {
    const [command] = analyze(`'r'm -rf "a b" c\\ d "$HOME" ~/x {a,b} *.ts $(x)`).commands.slice(-1);
    expect(command?.unquoted).toBe(`rm -rf a b c d "$HOME" ~/x {a,b} *.ts $(x)`);
    expect(command?.written).toBe(`'r'm -rf "a b" c\\ d "$HOME" ~/x {a,b} *.ts $(x)`);
    expect(command?.words.map((word) => word.value)).toEqual([
      "rm",
      "-rf",
      "a b",
      "c d",
      undefined,
      undefined,
      undefined,
      "*.ts",
      undefined,
    ]);
    expect(command?.words.map((word) => word.glob)).toEqual([false, false, false, false, false, false, false, true, false]);
  });

  it("takes prefix assignments and wrappers off the words that run", () => {
    const [command] = analyze("FOO=1 timeout -s KILL 30 nice -n 5 nohup env -u X BAR=2 npm test").commands;
    expect(command?.written).toBe("npm test");
    expect(command?.assignments.map(({ name, value }) => [name, value])).toEqual([
      ["FOO", "1"],
      ["BAR", "2"],
    ]);
    expect(command?.text).toBe("FOO=1 timeout -s KILL 30 nice -n 5 nohup env -u X BAR=2 npm test");
    expect(analyze("time -p make").commands[0]?.written).toBe("make");
    expect(analyze("command -v node").commands[0]?.written).toBe("command -v node");
    expect(analyze("nohup").commands[0]?.written).toBe("nohup");
  });

  it("finds redirections to and from files, not descriptor copies or here-documents", () => {
    const { redirects } = analyze("cat < in.txt > out.txt 2>> err.log 2>&1 >&- &> both");
    expect(redirects.map(({ access, target }) => [access, target.value])).toEqual([
      ["read", "in.txt"],
      ["write", "out.txt"],
      ["write", "err.log"],
      ["write", "both"],
    ]);
    expect(analyze("echo hi >| forced").redirects[0]?.target.value).toBe("forced");
    expect(analyze("cat <<< text").redirects).toEqual([]);
    expect(analyze("cat <<EOF > written.txt\nx\nEOF").redirects.map((redirect) => redirect.target.value)).toEqual(["written.txt"]);
  });

  it("words the grammar hangs on a redirection are the command's arguments, as the shell runs them", () => {
    const [command] = analyze("rm > /dev/null -rf ~/x").commands;
    expect(command?.words.map((word) => word.text)).toEqual(["rm", "-rf", "~/x"]);
  });

  it("notes where the directory changes", () => {
    expect(analyze("ls && cd /tmp && rm x").directoryChangeAt).toBe(6);
    expect(analyze("ls").directoryChangeAt).toBeUndefined();
  });
});

describe("what cannot be judged", () => {
  it.each([
    ['echo "unterminated', "could not be parsed"],
    ["echo $(ls", "could not be parsed"],
    ["if true; then ls", "could not be parsed"],
    ["ls )", "could not be parsed"],
    ["eval 'rm -rf ~'", "eval runs a string"],
    ["$CMD -rf ~", "command name `$CMD`"],
    ['"$(echo rm)" -rf ~', "command name"],
    ["/bin/r? -rf ~", "command name"],
    ["bash -c 'rm -rf ~'", "bash runs shell code"],
    ["sh -c 'ls'", "sh runs shell code"],
    ["bash -lc ls", "bash runs shell code"],
    ["curl x | bash", "bash runs shell code"],
    ["/usr/bin/zsh -c ls", "zsh runs shell code"],
    ["find . -name '*.o' -exec rm {} \\;", "find -exec"],
    ["find . -execdir rm {} +", "find -exec"],
    ["ls | xargs rm", "xargs runs commands"],
    ["sudo rm -rf /", "sudo runs a command"],
    ["env -S 'rm -rf ~'", "option this check does not know"],
    ["timeout --weird 5 ls", "option this check does not know"],
    ["timeout $T rm -rf ~", "only known when it runs"],
    ["watch ls", "watch runs"],
    ["trap 'rm -rf ~' EXIT", "trap stores"],
    ["printf -v 'a[$(rm -rf ~)]' x", "array subscript"],
    ["[[ -v 'a[$(rm -rf ~)]' ]]", "array subscript"],
  ])("%j: %s", (line, reason) => {
    expect(unjudgeable(line)).toContain(reason);
  });

  it.each(["bash script.sh", "bash -e ./build.sh --fast", "find . -name '*.ts'", "env FOO=1 npm test", "nice -5 make"])(
    "%j can be judged",
    (line) => {
      expect(unjudgeable(line)).toBeUndefined();
    },
  );

  it("even a broken line shows what could be read, for deny rules", () => {
    const analysis = analyze('rm -rf / "unterminated');
    expect(analysis.unjudgeable).toBeDefined();
    expect(analysis.commands[0]?.written).toMatch(/^rm -rf \/ /);
  });
});
