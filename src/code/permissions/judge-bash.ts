import { isAbsolute, resolve } from "node:path";
import type { BashAnalysis, BashCommand, BashRedirect } from "./bash-commands.js";
import type { BashWord } from "./bash-word-types.js";
import { processSubstitutionPath } from "./bash-words.js";
import { commandKind, findUnsafeAssignment, isSafeAssignment } from "./command-kinds.js";
import { type FileAccess, ruleCoversAccess } from "./file-tools.js";
import type { PermissionMode } from "./modes.js";
import { normalizeCommandText, type PermissionRule, type RuleList } from "./parse-rule.js";
import type { RuleSet } from "./rules.js";
import type { Verdict } from "./verdict.js";
import type { WorkspaceScope } from "./workspace-scope.js";

/**
 * Where a call runs: `off`, no OS sandbox this session; `confined`, inside the sandbox; `unconfined`, the sandbox is
 * on but the call asks to run outside it (`dangerouslyDisableSandbox`).
 */
export type Sandboxing = "confined" | "unconfined" | "off";

/** What a Bash decision needs besides the command line. */
export type BashJudgement = {
  mode: PermissionMode;
  rules: RuleSet;
  scope: WorkspaceScope;
  /** The shell's current directory (absolute), which relative paths are taken from. */
  directory: string;
  /** Where the call runs (default `off`: judged as without a sandbox). */
  sandboxing?: Sandboxing | undefined;
};

type Part = {
  command: BashCommand;
  /** `read`: a read-only command or safe assignments; `files`: mkdir, touch, rm, rmdir, mv, cp; `other`: anything else. */
  kind: "read" | "files" | "other";
  /** The absolute paths its operands name (for read and files commands), or why one cannot be known. */
  paths: string[] | string;
  /**
   * Directories it reads or changes files inside without naming them: a glob's or a recursive read's (`/` when
   * not even that is known). A deny or ask rule that may cover something inside one stops the line.
   */
  reaches: string[];
  /** A wrapper written as a path (`./env`) it runs through: the modes cannot tell what that file is. */
  through: string | undefined;
};

const harmlessTargets = new Set(["/dev/null", "/dev/stdout", "/dev/stderr", "/dev/tty", processSubstitutionPath]);

/** A command line being judged, taken apart. */
type Line = {
  analysis: BashAnalysis;
  subject: string;
  parts: Part[];
  redirects: { redirect: BashRedirect; path: string | undefined }[];
};

/**
 * Judges a command line: deny rules (on the whole line, each simple command, and the files it reads or writes),
 * then — for a call that asks to run outside the sandbox — an ask, then ask rules, then whether it can be judged at
 * all, then plan mode, then each simple command and redirection on its own (an allow rule or the mode). A call
 * confined to the sandbox that only the mode would ask about is allowed in default and acceptEdits modes. The
 * caller turns asks into denials in dontAsk mode.
 */
export function judgeBashCommand(analysis: BashAnalysis, { mode, rules, scope, directory, sandboxing = "off" }: BashJudgement): Verdict {
  const line: Line = {
    analysis,
    subject: `Bash command \`${shorten(analysis.text)}\``,
    parts: analysis.commands.map((command) => describePart(command, analysis, directory)),
    redirects: analysis.redirects.map((redirect) => ({ redirect, path: redirectPath(redirect, analysis, directory) })),
  };
  // Deny and ask rules also see where a path leads on disk (a link into a denied folder is that folder).
  const followLinks = (path: string) => scope.followLinks(path);
  const denied = findRule(line, "deny", rules, followLinks);
  if (denied) {
    const { rule, what } = denied;
    const message = `Permission denied: ${what} the deny rule \`${rule.text}\` (${rule.source}). Do not try to get around it; take another approach or ask the user.`;
    return { behavior: "deny", rule, message };
  }
  const cannot = analysis.unjudgeable ?? line.parts.find((part) => part.command.unjudgeable)?.command.unjudgeable;
  // Outside the sandbox nothing stops a command but these rules: a person decides, whatever the mode or allow rules say.
  if (sandboxing === "unconfined") {
    const reason = `${line.subject} asks to run outside the sandbox (dangerouslyDisableSandbox), so it needs approval`;
    return { behavior: "ask", reason, changes: cannot !== undefined || changesThings(line) };
  }
  const asked = findRule(line, "ask", rules, followLinks);
  if (asked)
    return { behavior: "ask", rule: asked.rule, reason: `${asked.what} the ask rule \`${asked.rule.text}\` (${asked.rule.source})` };
  const reached = findReachedRule(line, rules);
  if (reached) return { behavior: "ask", rule: reached.rule, reason: reached.reason, changes: reached.edits };

  const verdict = judgeParts(line, cannot, { mode, rules, scope });
  // Claude Code's auto-allow: the sandbox, not the mode, confines what the command can reach. What cannot be judged
  // runs there too, unless a Bash deny or ask rule exists: such a rule cannot see inside it.
  const bashRule = [...rules.deny, ...rules.ask].find((rule) => rule.tool === "Bash");
  if (verdict.behavior === "ask" && sandboxing === "confined" && (mode === "default" || mode === "acceptEdits") && !(cannot && bashRule))
    return { behavior: "allow", reason: `${line.subject} runs in the sandbox, which ${mode} mode allows`, byMode: true };
  return verdict;
}

/** After the rules that stop a line: whether it can be judged, plan mode, then an allow rule or the mode for each part. */
function judgeParts(
  line: Line,
  cannot: string | undefined,
  { mode, rules, scope }: Pick<BashJudgement, "mode" | "rules" | "scope">,
): Verdict {
  // A bare `Bash` allow rule (`--allowedTools Bash`) allows every command, as Claude Code's does, and their writes inside
  // the workspace; plan mode, deny and ask rules, and writes outside the workspace or into protected folders still hold.
  const everyCommand = mode === "plan" ? undefined : rules.allow.find((rule) => rule.tool === "Bash" && rule.specifier === undefined);
  if (cannot !== undefined) {
    // A deny rule cannot see inside `sudo rm`, `bash -c "rm x"` or `r$(echo m)`: it must still hold in bypassPermissions.
    const bashDeny = rules.deny.find((rule) => rule.tool === "Bash");
    if (mode === "bypassPermissions" && !bashDeny)
      return { behavior: "allow", reason: "bypassPermissions runs what no deny rule forbids", byMode: true };
    if (everyCommand && !bashDeny && !rules.ask.some((rule) => rule.tool === "Bash"))
      return {
        behavior: "allow",
        reason: `${line.subject} is allowed by \`${everyCommand.text}\` (${everyCommand.source}), which allows every command`,
        rule: everyCommand,
      };
    const guard = bashDeny ? `, so the deny rule \`${bashDeny.text}\` (${bashDeny.source}) cannot be checked` : "";
    return { behavior: "ask", reason: `${line.subject} cannot be judged: ${cannot}${guard}`, changes: true };
  }
  const changes = changesThings(line);
  if (mode === "plan" && changes) return { behavior: "ask", reason: `${line.subject} can change things`, changes: true };

  let byMode = false;
  const deciding = new Set<PermissionRule>();
  for (const part of line.parts) {
    const rule = rules.findCommandRule("allow", matchedForms(part.command, "allow"));
    const refusal = rule ? undefined : modeRefusal(part, mode, scope, rules);
    if (refusal !== undefined) return { behavior: "ask", reason: `${partSubject(part.command, line)} ${refusal}`, changes };
    if (rule) deciding.add(rule);
    else byMode = true;
  }
  for (const { redirect, path } of line.redirects) {
    if (path !== undefined && harmlessTargets.has(path)) continue;
    const rule =
      path === undefined
        ? undefined
        : (rules.findAccessRule("allow", redirect.access === "read" ? "read" : "edit", path, false) ??
          (everyCommand && scope.containsOnDisk(path, redirect.access !== "read") ? everyCommand : undefined));
    const refusal = rule ? undefined : redirectRefusal(redirect, path, mode, scope);
    if (refusal !== undefined) return { behavior: "ask", reason: `${line.subject} ${refusal}`, changes };
    if (rule) deciding.add(rule);
    else byMode = true;
  }
  const by = [...(byMode ? [`${mode} mode`] : []), ...[...deciding].map((rule) => `\`${rule.text}\` (${rule.source})`)].join(" and ");
  const only = deciding.size === 1 && !byMode ? [...deciding][0] : undefined;
  return { behavior: "allow", reason: `${line.subject} is allowed by ${by || `${mode} mode`}`, rule: only, byMode };
}

/** Whether a (judgeable) line may change things: a command that is not read-only, or a redirection writing a file. */
function changesThings(line: Line): boolean {
  return (
    line.parts.some((part) => part.kind !== "read" || part.through !== undefined) ||
    line.redirects.some(({ redirect, path }) => redirect.access === "write" && !harmlessTargets.has(path ?? ""))
  );
}

/**
 * Whether a command line only reads, as the modes judge it, wherever it reads: it can be judged (no `eval`,
 * `bash -c`, `xargs`, `$CMD`…), every simple command is read-only by {@link commandKind}, runs through no wrapper
 * written as a path and sets only safe variables, and no redirection writes a file. Where it reads is left to the
 * rules and the mode (a read-only subagent's check asks this, then the session's permissions judge the paths).
 */
export function isReadOnlyBashLine(analysis: BashAnalysis): boolean {
  if (analysis.unjudgeable !== undefined) return false;
  const readOnly = (command: BashCommand) => {
    const kind = commandKind(command.runs);
    return (
      command.unjudgeable === undefined &&
      command.runs === command.words &&
      (kind === "read" || kind === "print") &&
      command.assignments.every((assignment) => isSafeAssignment(assignment.name, assignment.value))
    );
  };
  return (
    analysis.commands.every(readOnly) &&
    analysis.redirects.every(
      (redirect) => redirect.access === "read" || (redirect.target.value !== undefined && harmlessTargets.has(redirect.target.value)),
    )
  );
}

/** The first rule of `list` the line matches: as a whole, by a part, or by a file a part or a redirection names. */
function findRule(
  line: Line,
  list: RuleList,
  rules: RuleSet,
  followLinks?: (path: string) => string | undefined,
): { rule: PermissionRule; what: string } | undefined {
  const forms = (path: string) => {
    const real = followLinks?.(path);
    return real !== undefined && real !== path ? [path, real] : [path];
  };
  const whole = rules.findCommandRule(list, [line.analysis.text]);
  if (whole) return { rule: whole, what: `${line.subject} matches` };
  for (const part of line.parts) {
    const rule = rules.findCommandRule(list, matchedForms(part.command, list));
    if (rule) return { rule, what: `${partSubject(part.command, line)} matches` };
    if (part.kind === "other" || typeof part.paths === "string") continue;
    for (const path of part.paths.flatMap(forms)) {
      const found = findFileRule(rules, list, part.kind === "files" ? ["read", "edit"] : ["read"], path);
      if (found)
        return {
          rule: found,
          what: `${partSubject(part.command, line)} ${part.kind === "files" ? "changes" : "reads"} \`${path}\`, which matches`,
        };
    }
  }
  for (const { redirect, path: written } of line.redirects) {
    if (written === undefined || harmlessTargets.has(written)) continue;
    for (const path of forms(written)) {
      const rule = rules.findAccessRule(list, redirect.access === "read" ? "read" : "edit", path, false);
      if (rule) return { rule, what: `${line.subject} ${redirect.access === "read" ? "reads" : "writes"} \`${written}\`, which matches` };
    }
  }
  return undefined;
}

/** A deny or ask rule that may cover a file the line reads or changes without naming it (`cat s*`, `grep -r x .`). */
function findReachedRule(line: Line, rules: RuleSet): { rule: PermissionRule; reason: string; edits: boolean } | undefined {
  const reaches = [
    ...line.parts.flatMap((part) =>
      part.reaches.map((directory) => ({ directory, edits: part.kind === "files", text: partSubject(part.command, line) })),
    ),
    ...line.redirects
      .filter(({ path }) => path === undefined)
      .map(({ redirect }) => ({ directory: "/", edits: redirect.access === "write", text: line.subject })),
  ];
  for (const { directory, edits, text } of reaches)
    for (const list of ["deny", "ask"] as const) {
      const rule = rules[list].find(
        (candidate) =>
          candidate.target.kind === "path" &&
          (ruleCoversAccess(candidate.tool, "read") || (edits && ruleCoversAccess(candidate.tool, "edit"))) &&
          candidate.target.pattern.mayMatchInside(directory),
      );
      if (rule) {
        const where = directory === "/" ? "files only known when it runs" : `files inside \`${directory}\` it does not name`;
        return { rule, edits, reason: `${text} may reach ${where}, which the ${list} rule \`${rule.text}\` (${rule.source}) may cover` };
      }
    }
  return undefined;
}

/** Why the mode does not let a redirection read or write its file, or undefined when it does. */
function redirectRefusal(
  redirect: BashRedirect,
  path: string | undefined,
  mode: PermissionMode,
  scope: WorkspaceScope,
): string | undefined {
  if (mode === "bypassPermissions") return undefined;
  const verb = redirect.access === "read" ? "reads" : "writes";
  const where = `\`${path ?? redirect.target.text}\``;
  if (path === undefined) return `${verb} ${where}, a path only known when it runs`;
  if (!scope.contains(path)) return `${verb} ${where}, outside the workspace`;
  if (mode === "dontAsk") return `${verb} ${where}, which no rule allows`;
  if (redirect.access === "write") {
    if (mode !== "acceptEdits") return `writes ${where}; edits need approval in ${mode} mode`;
    if (scope.isProtected(path)) return `writes ${where}, in a protected directory`;
  }
  if (!scope.containsOnDisk(path, redirect.access === "write")) return `${verb} ${where}, which a symbolic link leads out of the workspace`;
  return undefined;
}

/** Why the mode does not run `part`, or undefined when it does. */
function modeRefusal(part: Part, mode: PermissionMode, scope: WorkspaceScope, rules: RuleSet): string | undefined {
  if (mode === "bypassPermissions") return undefined;
  const notAllowed = "is not allowed by any rule";
  if (part.through !== undefined)
    return `${notAllowed} (it runs through \`${part.through}\`, a path: this check cannot tell that file is the wrapper it is named after)`;
  const assigns = findUnsafeAssignment(part.command.words);
  if (assigns !== undefined && mode !== "dontAsk") return `${notAllowed} (${assigns}, which can change what runs)`;
  if (mode === "dontAsk" || part.kind === "other") return notAllowed;
  const unsafe = part.command.assignments.find((assignment) => !isSafeAssignment(assignment.name, assignment.value));
  if (unsafe) return `${notAllowed} (it sets ${unsafe.name}, which can change what runs)`;
  if (part.kind === "files" && mode !== "acceptEdits") return `${notAllowed}; file changes need approval in ${mode} mode`;
  if (typeof part.paths === "string") return `${notAllowed}: ${part.paths}`;
  for (const path of part.paths) {
    if (part.kind === "read") {
      if (rules.findAccessRule("allow", "read", path, false)) continue;
      if (!scope.contains(path)) return `${notAllowed}: it reads \`${path}\`, outside the workspace`;
      if (!scope.containsOnDisk(path, false))
        return `${notAllowed}: it reads \`${path}\`, which a symbolic link leads out of the workspace`;
    } else if (!rules.findAccessRule("allow", "edit", path, false)) {
      if (!scope.contains(path)) return `${notAllowed}: it changes \`${path}\`, outside the workspace`;
      if (scope.isDirectory(path)) return `${notAllowed}: it changes \`${path}\`, a workspace directory itself`;
      if (scope.isProtected(path)) return `${notAllowed}: it changes \`${path}\`, in a protected directory`;
      if (!scope.containsOnDisk(path, true))
        return `${notAllowed}: it changes \`${path}\`, which a symbolic link leads out of the workspace`;
    }
  }
  return undefined;
}

/** What a simple command does, as far as its words tell: judged on what runs, through wrappers written as paths. */
function describePart(command: BashCommand, analysis: BashAnalysis, directory: string): Part {
  const { runs } = command;
  const through = runs === command.words ? undefined : command.words[0]?.text;
  const name = runs[0]?.value;
  const known = commandKind(runs);
  if (name === undefined) {
    // Assignments alone: only safe ones leave what later commands run as it was.
    const safe = command.assignments.every((assignment) => isSafeAssignment(assignment.name, assignment.value));
    return { command, kind: known === "print" && safe ? "read" : "other", paths: [], reaches: [], through };
  }
  if (known === "print") return { command, kind: "read", paths: [], reaches: [], through };
  const kind = known;
  if (kind === "other") return { command, kind, paths: [], reaches: [], through };
  const cwdKnown = analysis.directoryChangeAt === undefined || command.start <= analysis.directoryChangeAt;
  const operands = operandsOf(runs);
  if (typeof operands === "string") return { command, kind, paths: operands, reaches: ["/"], through };
  // `cd` alone goes home; `cd -` goes back.
  if ((name === "cd" || name === "pushd") && operands.length === 0)
    return { command, kind, paths: "it changes to a directory not named here", reaches: [], through };
  // `ls`, `du`, `grep -r x` without an operand read the current directory.
  const words: BashWord[] = operands.length > 0 || name === "cd" || name === "pushd" ? operands : [{ text: ".", value: ".", glob: false }];
  const paths: string[] = [];
  const reaches: string[] = [];
  let why: string | undefined;
  for (const operand of words) {
    const path = wordPath(operand, cwdKnown, directory);
    if ("why" in path) {
      why ??= path.why;
      reaches.push(path.within);
    } else if (kind === "files" || !harmlessTargets.has(path.path)) paths.push(path.path);
  }
  if (isRecursiveRead(name, runs)) {
    reaches.push(...paths);
    // `grep -r TOKEN`: the one operand is the pattern, and the current directory is searched.
    if (name.endsWith("grep") && operands.length <= 1) reaches.push(cwdKnown ? directory : "/");
  }
  return { command, kind, paths: why ?? paths, reaches, through };
}

/** Whether `grep -r`, `ls -R`, `diff -r`, `du` read whole folders. */
function isRecursiveRead(name: string, words: readonly BashWord[]): boolean {
  if (name === "du") return true;
  const short = name === "ls" ? /^-[A-Za-z]*R/ : name === "diff" ? /^-[A-Za-z]*r/ : /^-[A-Za-z]*[rR]/;
  if (!["grep", "egrep", "fgrep", "ls", "diff"].includes(name)) return false;
  return words.slice(1).some((word) => {
    const value = word.value ?? "";
    return (!value.startsWith("--") && short.test(value)) || /^--(dereference-)?recursive$/.test(value) || value.includes("recurse");
  });
}

/** The operands of a command (words after its name that are not options), option values that look like paths included. */
function operandsOf(words: readonly BashWord[]): BashWord[] | string {
  const operands: BashWord[] = [];
  let optionsEnded = false;
  for (const word of words.slice(1)) {
    const value = word.value;
    if (optionsEnded || value === undefined || !value.startsWith("-") || value === "-") {
      if (value !== "-") operands.push(word);
    } else if (value === "--") optionsEnded = true;
    else if (value.startsWith("--files0-from")) return `its option \`${word.text}\` reads file names from a file`;
    else if (value.includes("=")) {
      // `--color=auto` names no path, and is judged as one harmlessly: `auto` in the workspace.
      // `--include=*.ts` is a file-name pattern for the command, not a path.
      const pattern = /^--(include|exclude|exclude-dir)=[^/]*$/.test(value);
      operands.push({ text: word.text, value: value.slice(value.indexOf("=") + 1), glob: word.glob && !pattern });
    } else if (value.includes("/")) return `its option \`${word.text}\` names a path`;
  }
  return operands;
}

/** The absolute path a word names, or why it cannot be known and the directory it lies in (`/`: not known). */
function wordPath(word: BashWord, cwdKnown: boolean, directory: string): { path: string } | { why: string; within: string } {
  const value = word.value;
  if (value === undefined) return { why: `its operand \`${word.text}\` is only known when it runs`, within: "/" };
  if (!cwdKnown && !isAbsolute(value))
    return { why: `\`${word.text}\` is relative to a directory changed earlier in the command`, within: "/" };
  if (word.glob) {
    // The directories before the first wildcard; a segment starting with `.` or `[` may match `..` and leave them.
    const segments = value.split("/");
    const wild = segments.findIndex((segment) => /[*?[]/.test(segment));
    const leaves = segments.some((segment) => /^(\.[*?[]|\[)/.test(segment));
    const within = leaves ? "/" : resolve(directory, segments.slice(0, wild).join("/") || ".");
    return { why: `the pattern \`${word.text}\` names files that path rules cannot judge before it runs`, within };
  }
  return { path: resolve(directory, value) };
}

function redirectPath(redirect: BashRedirect, analysis: BashAnalysis, directory: string): string | undefined {
  const value = redirect.target.value;
  if (value === undefined || redirect.target.glob) return undefined;
  const cwdKnown = analysis.directoryChangeAt === undefined || redirect.start <= analysis.directoryChangeAt;
  if (!cwdKnown && !isAbsolute(value)) return undefined;
  return resolve(directory, value);
}

/**
 * The texts a rule of `list` is matched against. Allow rules see the words as written after wrappers, without
 * prefix assignments only when all of those are safe (`NODE_ENV=test`); deny and ask rules also see the whole
 * command (assignments and wrappers included) and the words with quotes removed, and the command's base name —
 * and the same for what a wrapper written as a path runs.
 */
function matchedForms(command: BashCommand, list: RuleList): string[] {
  const safe = command.assignments.every((assignment) => isSafeAssignment(assignment.name, assignment.value));
  const withAssignments = [...command.assignments.map((assignment) => assignment.text), command.written].join(" ").trim();
  if (list === "allow") return safe && command.words.length > 0 ? [command.written, withAssignments] : [withAssignments];
  const forms = [command.written, command.text, command.unquoted, withAssignments];
  if (command.words[0]?.value?.includes("/")) forms.push(command.unquoted.replace(/^\S*\//, ""));
  if (command.runs === command.words) return forms;
  // `/usr/bin/env rm x`: what the wrapper written as a path runs.
  const runs = command.runs.map((word) => word.value ?? word.text).join(" ");
  forms.push(normalizeCommandText(command.runs.map((word) => word.text).join(" ")), runs);
  if (command.runs[0]?.value?.includes("/")) forms.push(runs.replace(/^\S*\//, ""));
  return forms;
}

function findFileRule(rules: RuleSet, list: RuleList, accesses: readonly FileAccess[], path: string): PermissionRule | undefined {
  for (const access of accesses) {
    const rule = rules.findAccessRule(list, access, path, true);
    if (rule) return rule;
  }
  return undefined;
}

function partSubject(command: BashCommand, line: Line): string {
  const text = command.text || command.written;
  return text === line.analysis.text ? line.subject : `\`${shorten(text)}\` (in ${line.subject})`;
}

/** `text` cut to a length a person reads at a glance. */
export function shorten(text: string, length = 200): string {
  const line = text.slice(0, length * 4).replace(/\s*\n\s*/g, " ⏎ ");
  return line.length <= length && text.length <= length * 4 ? line : `${line.slice(0, length - 1)}…`;
}
