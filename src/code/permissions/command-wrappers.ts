import type { BashAssignment, BashWord } from "./bash-commands.js";

/**
 * Wrappers that run the rest of their words as a command. They are taken off before a command is matched, as
 * Claude Code does: `timeout 30 npm test` is judged as `npm test` (and `Bash(timeout *)` allows nothing more).
 */
const wrappers: Readonly<Record<string, (words: readonly BashWord[], assignments: BashAssignment[]) => number | string>> = {
  nohup: () => 1,
  builtin: () => 1,
  time: (words) => skipOptions(words, 1, { flags: ["-p"] }),
  nice: (words) => skipOptions(words, 1, { valued: ["-n"], attached: /^(-n.+|--adjustment=.*|-\d+)$/ }),
  timeout: (words) => {
    const at = skipOptions(words, 1, {
      flags: ["--preserve-status", "--foreground", "-v", "--verbose"],
      valued: ["-k", "-s"],
      attached: /^(-[ks].+|--kill-after=.*|--signal=.*)$/,
    });
    return typeof at === "number" && at < words.length ? at + 1 : at; // the duration
  },
  stdbuf: (words) => skipOptions(words, 1, { valued: ["-i", "-o", "-e"], attached: /^(-[ioe].+|--(input|output|error)=.*)$/ }),
  exec: (words) => skipOptions(words, 1, { flags: ["-c", "-l", "-cl", "-lc"], valued: ["-a"] }),
  command: (words) => {
    const option = words[1]?.value;
    if (option === "-v" || option === "-V") return 0; // `command -v x` looks a name up: it is the command itself
    return skipOptions(words, 1, { flags: ["-p"] });
  },
  env: (words, assignments) => {
    const at = skipOptions(words, 1, {
      flags: ["-i", "-", "--ignore-environment", "-0", "--null"],
      valued: ["-u"],
      attached: /^(-u.+|--unset=.*)$/,
    });
    if (typeof at === "string") return at;
    let index = at;
    for (; index < words.length; index++) {
      const value = words[index]?.value;
      const equals = value?.indexOf("=") ?? -1;
      if (value === undefined || equals <= 0 || !/^[A-Za-z_][A-Za-z0-9_]*$/.test(value.slice(0, equals))) break;
      const word = words[index] as BashWord;
      assignments.push({ name: value.slice(0, equals), value: value.slice(equals + 1), text: word.text });
    }
    return index;
  },
};

/** Commands that run code which cannot be read from the command line. */
const runners: Readonly<Record<string, string>> = {
  eval: "eval runs a string as shell code",
  xargs: "xargs runs commands built from its input",
  parallel: "parallel runs commands built from its input",
  watch: "watch runs its arguments as a shell command",
  trap: "trap stores shell code to run later",
  alias: "alias changes what later words run",
  coproc: "coproc runs a command in the background",
  fc: "fc runs commands from the history",
  enable: "enable can load builtins from shared libraries",
  sudo: "sudo runs a command as another user",
  doas: "doas runs a command as another user",
  su: "su runs a command as another user",
  pkexec: "pkexec runs a command as another user",
  runuser: "runuser runs a command as another user",
  chroot: "chroot runs a command in another root",
  setsid: "setsid runs a command in a new session",
  nsenter: "nsenter runs a command in other namespaces",
  unshare: "unshare runs a command in new namespaces",
  flock: "flock runs a command under a lock",
  busybox: "busybox runs any of its applets",
};

const shells = new Set(["bash", "sh", "zsh", "dash", "ksh", "mksh", "ash", "fish", "csh", "tcsh"]);
const findActions = new Set(["-exec", "-execdir", "-ok", "-okdir"]);
// Builtins that evaluate an array subscript in a name (`printf -v 'a[$(cmd)]'`): the string runs as code.
const subscriptEvaluators = new Set([
  "printf",
  "read",
  "unset",
  "declare",
  "typeset",
  "local",
  "export",
  "readonly",
  "let",
  "test",
  "[",
  "mapfile",
  "readarray",
  "wait",
]);

/** The words of a command once wrappers are taken off; assignments made by `env` are added to `assignments`. */
export function stripWrappers(
  words: readonly BashWord[],
  assignments: BashAssignment[],
): { words: readonly BashWord[]; unjudgeable: string | undefined } {
  let rest = words;
  for (let round = 0; round < 16; round++) {
    const name = rest[0]?.value;
    const strip = name === undefined || !Object.hasOwn(wrappers, name) ? undefined : wrappers[name];
    if (!strip) break;
    const at = strip(rest, assignments);
    if (typeof at === "string") return { words: rest, unjudgeable: at };
    if (at === 0 || at >= rest.length) break; // the wrapper alone (`nohup`, `env`) is the command
    rest = rest.slice(at);
  }
  return { words: rest, unjudgeable: undefined };
}

/** Why a command (after its wrappers) cannot be judged from its words, or undefined when it can. */
export function findUnjudgeable(words: readonly BashWord[]): string | undefined {
  const first = words[0];
  if (!first) return undefined;
  if (first.value === undefined || first.glob) return `its command name \`${first.text}\` is only known when it runs`;
  const name = first.value.slice(first.value.lastIndexOf("/") + 1);
  if (Object.hasOwn(runners, name)) return runners[name];
  if (shells.has(name) && !runsScriptFile(words)) return `${name} runs shell code given as a string or on its input`;
  if (name === "find" && words.some((word) => word.value !== undefined && findActions.has(word.value)))
    return "find -exec runs commands for the files it finds";
  if (subscriptEvaluators.has(name) && words.some((word) => /\[[^\]]*(\$\(|`|\$\{)/.test(word.text)))
    return `${name} evaluates an array subscript that holds a command`;
  return undefined;
}

/** `bash script.sh args` runs a file; `bash`, `bash -c …`, `bash -s`, `bash -i` run code from elsewhere. */
function runsScriptFile(words: readonly BashWord[]): boolean {
  for (let index = 1; index < words.length; index++) {
    const value = words[index]?.value;
    if (value === undefined) return false;
    if (value === "--") return index + 1 < words.length;
    if (!value.startsWith("-") && !value.startsWith("+")) return true;
    if (value.startsWith("--")) {
      if (!["--norc", "--noprofile", "--posix", "--noediting"].includes(value)) return false;
    } else if (/[cisO]/.test(value.slice(1)) || value === "-o" || value === "+o") return false;
  }
  return false;
}

type OptionSyntax = { flags?: readonly string[]; valued?: readonly string[]; attached?: RegExp };

/** The index of the first word after a wrapper's options, or why they cannot be read. */
function skipOptions(words: readonly BashWord[], from: number, syntax: OptionSyntax): number | string {
  let index = from;
  while (index < words.length) {
    const word = words[index] as BashWord;
    const value = word.value;
    if (value === undefined) return `the option \`${word.text}\` of \`${words[0]?.text}\` is only known when it runs`;
    if (value === "--") return index + 1;
    if (!value.startsWith("-") || (value === "-" && !syntax.flags?.includes("-"))) return index;
    if (syntax.flags?.includes(value) || syntax.attached?.test(value)) index += 1;
    else if (syntax.valued?.includes(value)) index += 2;
    else return `\`${words[0]?.value} ${value}\` is an option this check does not know`;
  }
  return index;
}
