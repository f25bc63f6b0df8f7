import { posix } from "node:path";
import { isLiteralArithmetic, nameProblem } from "./bash-expansions.js";
import type { BashWord } from "./bash-word-types.js";

/**
 * Commands that run code which cannot be read from the command line: strings of shell code, their input, another
 * user's or host's shell, or a command under options this check does not read. They are recognised by base name
 * (`/usr/bin/sudo` is sudo), and whatever they run is never allowed by a rule or a mode.
 */
const runners: Readonly<Record<string, string>> = {
  eval: "eval runs a string as shell code",
  xargs: "xargs runs commands built from its input",
  parallel: "parallel runs commands built from its input",
  sem: "sem runs commands as parallel does",
  watch: "watch runs its arguments as a shell command",
  entr: "entr runs a command whenever files change",
  hyperfine: "hyperfine runs command lines given as strings",
  pee: "pee runs command lines given as strings",
  trap: "trap stores shell code to run later",
  alias: "alias changes what later words run",
  coproc: "coproc runs a command in the background",
  fc: "fc runs commands from the history",
  enable: "enable can load builtins from shared libraries",
  at: "at runs commands read from its input or a file, later",
  batch: "batch runs commands read from its input or a file, later",
  crontab: "crontab installs commands to run later",
  tmux: "tmux runs shell commands in its sessions",
  screen: "screen runs commands in its sessions",
  script: "script runs a shell, or the command line given with -c, and records it",
  sudo: "sudo runs a command as another user",
  sudoedit: "sudoedit edits files as another user",
  doas: "doas runs a command as another user",
  run0: "run0 runs a command as another user",
  su: "su runs a command as another user",
  pkexec: "pkexec runs a command as another user",
  runuser: "runuser runs a command as another user",
  sg: "sg runs a command line with another group",
  newgrp: "newgrp starts a shell with another group",
  setpriv: "setpriv runs a command with other privileges",
  capsh: "capsh runs a shell with other capabilities",
  chpst: "chpst runs a command with another user, root or limits",
  runcon: "runcon runs a command in another SELinux context",
  "aa-exec": "aa-exec runs a command under another AppArmor profile",
  chroot: "chroot runs a command in another root",
  setsid: "setsid runs a command in a new session",
  nsenter: "nsenter runs a command in other namespaces",
  unshare: "unshare runs a command in new namespaces",
  bwrap: "bwrap runs a command in namespaces its options set up",
  firejail: "firejail runs a command in a sandbox its options set up",
  "sandbox-exec": "sandbox-exec runs a command in a sandbox its profile sets up",
  "flatpak-spawn": "flatpak-spawn runs a command, outside the sandbox with --host",
  "systemd-run": "systemd-run runs a command as a system unit",
  "systemd-nspawn": "systemd-nspawn runs a command in a container",
  "lxc-attach": "lxc-attach runs a command in a container",
  "lxc-execute": "lxc-execute runs a command in a container",
  "start-stop-daemon": "start-stop-daemon runs a command as a daemon",
  ssh: "ssh runs a command line on another host, and its options can run local programs (ProxyCommand)",
  flock: "flock runs a command under a lock",
  lckdo: "lckdo runs a command under a lock",
  busybox: "busybox runs any of its applets",
  toybox: "toybox runs any of its applets",
  strace: "strace runs a command, and its options can write files and run programs",
  ltrace: "ltrace runs a command, and its options can write files and run programs",
  valgrind: "valgrind runs a command, and its options can run other programs",
  gdb: "gdb runs programs and the commands given with -ex, in files or on its input",
  lldb: "lldb runs programs and the commands given with -o, in files or on its input",
  perf: "perf runs commands (record, stat, trace…) and scripts",
  fakeroot: "fakeroot runs a command or a shell with a library preloaded",
  torsocks: "torsocks runs a command, or a shell with --shell, with a library preloaded",
  cpulimit: "cpulimit runs a command with options its versions read differently",
  prlimit: "prlimit runs a command after options whose values are optional",
};

/** Commands that run other commands only with some options: the option's pattern, and why. */
const optionRunners: Readonly<Record<string, { option: RegExp; reason: string }>> = {
  rsync: { option: /^(-[A-Za-z0-9]*e|--(rsh|rsync-path)(=|$))/, reason: "rsync -e and --rsync-path run commands" },
  scp: { option: /^-[A-Za-z0-9]*[oSFD]/, reason: "scp's -o, -F, -S and -D can run programs (ProxyCommand)" },
  sftp: { option: /^-[A-Za-z0-9]*[oSFD]/, reason: "sftp's -o, -F, -S and -D can run programs (ProxyCommand)" },
  tar: {
    option:
      /^(-[A-Za-z0-9]*[IF]|--(to-command|use-compress-program|checkpoint-action|info-script|new-volume-script|rsh-command|rmt-command)(=|$))/,
    reason: "tar runs the programs its -I, -F, --to-command and like options name",
  },
  zip: { option: /^(-TT|--unzip-command)/, reason: "zip -TT runs a command" },
  fd: { option: /^(-[A-Za-z0-9]*[xX]|--exec(-batch)?(=|$))/, reason: "fd -x and -X run commands for the files it finds" },
  fdfind: { option: /^(-[A-Za-z0-9]*[xX]|--exec(-batch)?(=|$))/, reason: "fd -x and -X run commands for the files it finds" },
  rg: { option: /^--pre(=|$)/, reason: "rg --pre runs a command on each file" },
  sort: { option: /^--compress-program(=|$)/, reason: "sort --compress-program runs a program" },
  compgen: { option: /^-[A-Za-z]*[CF]/, reason: "compgen -C and -F run commands" },
  complete: { option: /^-[A-Za-z]*[CF]/, reason: "complete -C and -F store commands to run later" },
  hash: { option: /^-[A-Za-z]*p/, reason: "hash -p changes which file a later name runs" },
  bind: { option: /^-[A-Za-z]*x/, reason: "bind -x runs shell code" },
  mapfile: { option: /^-[A-Za-z]*C/, reason: "mapfile -C runs a callback as shell code" },
  readarray: { option: /^-[A-Za-z]*C/, reason: "readarray -C runs a callback as shell code" },
};

const bashLikeShells = new Set(["bash", "sh", "zsh", "dash", "ksh", "mksh", "ash", "rbash", "yash", "posh", "lksh", "oksh"]);
const otherShells = new Set(["fish", "csh", "tcsh", "elvish", "nu", "xonsh", "pwsh", "powershell", "rc", "es"]);
const findActions = new Set(["-exec", "-execdir", "-ok", "-okdir"]);

/** Builtins that take variable names, evaluating a subscript in one: which options take a value, and which of those name a variable. */
const namingBuiltins: Readonly<Record<string, { valued: string; naming: string; operands: "names" | "assignments" | "none" }>> = {
  read: { valued: "adinNptu", naming: "a", operands: "names" },
  mapfile: { valued: "dnOsuCc", naming: "", operands: "names" },
  readarray: { valued: "dnOsuCc", naming: "", operands: "names" },
  printf: { valued: "v", naming: "v", operands: "none" },
  wait: { valued: "p", naming: "p", operands: "none" },
  unset: { valued: "", naming: "", operands: "names" },
  declare: { valued: "", naming: "", operands: "assignments" },
  typeset: { valued: "", naming: "", operands: "assignments" },
  local: { valued: "", naming: "", operands: "assignments" },
  export: { valued: "", naming: "", operands: "assignments" },
  readonly: { valued: "", naming: "", operands: "assignments" },
};

/** Why a command (after its wrappers) cannot be judged from its words, or undefined when it can. */
export function findUnjudgeable(words: readonly BashWord[]): string | undefined {
  const first = words[0];
  if (!first) return undefined;
  if (first.value === undefined || first.glob) return `its command name \`${first.text}\` is only known when it runs`;
  const name = baseName(first.value);
  if (Object.hasOwn(runners, name)) return runners[name];
  if ((bashLikeShells.has(name) || otherShells.has(name)) && !runsScriptFile(words, bashLikeShells.has(name)))
    return `${name} runs shell code given as a string or on its input`;
  if ((name === "source" || name === ".") && readsCodeFromInput(words[words[1]?.value === "--" ? 2 : 1]))
    return `${name} runs shell code from its input or a pipe`;
  if (name === "find" && words.some((word) => word.value !== undefined && findActions.has(word.value)))
    return "find -exec runs commands for the files it finds";
  const optionRunner = Object.hasOwn(optionRunners, name) ? optionRunners[name] : undefined;
  if (optionRunner && optionsOf(words).some((value) => optionRunner.option.test(value))) return optionRunner.reason;
  if (name === "git") return gitRunsCommands(words);
  if (name === "let") {
    const expression = words.slice(1).find((word) => word.value === undefined || !isLiteralArithmetic(word.value));
    return (
      expression && `let evaluates \`${expression.text}\` as arithmetic: the variables in it, and a value like \`a[$(…)]\` runs a command`
    );
  }
  if (name === "getopts") {
    const variable = words[2];
    const problem = variable && nameProblem(variable.value ?? variable.text);
    return problem && `getopts: ${problem}`;
  }
  if (name === "test" || name === "[") {
    const tested = words.find((_word, index) => index > 0 && (words[index - 1]?.value === "-v" || words[index - 1]?.value === "-R"));
    const problem = tested && nameProblem(tested.value ?? tested.text);
    return problem && `${name} -v: ${problem}`;
  }
  return Object.hasOwn(namingBuiltins, name) ? findNamingProblem(name, words) : undefined;
}

/** The base name of a command written as a path (`/usr/bin/env` is `env`). */
export function baseName(command: string): string {
  return command.slice(command.lastIndexOf("/") + 1);
}

/** `bash script.sh args` runs a file; `bash`, `bash -c …`, `bash -s`, `bash -i`, `bash <(…)` run code from elsewhere. */
function runsScriptFile(words: readonly BashWord[], bashLike: boolean): boolean {
  for (let index = 1; index < words.length; index++) {
    const value = words[index]?.value;
    if (value === undefined) return false;
    if (value === "--") return index + 1 < words.length && !readsCodeFromInput(words[index + 1]);
    if (!value.startsWith("-") && !value.startsWith("+")) return !readsCodeFromInput(words[index]);
    if (!bashLike) return false;
    if (value.startsWith("--")) {
      if (!["--norc", "--noprofile", "--posix", "--noediting"].includes(value)) return false;
    } else if (/[cisO]/.test(value.slice(1)) || value === "-o" || value === "+o") return false;
  }
  return false;
}

/**
 * Whether a file operand may be a pipe or the input (`<(…)`, `/dev/stdin`, `../../proc/self/fd/0`), or is only
 * known when it runs (`~/…` is a file in the home directory).
 */
function readsCodeFromInput(word: BashWord | undefined): boolean {
  if (word === undefined) return false;
  if (word.value === undefined) return !/^~\/[\w./-]*$/.test(word.text) || word.text.includes("..");
  const path = posix.normalize(word.value);
  return /^\/(dev|proc)\//.test(path) || (path.startsWith("../") && /(^|\/)(dev|proc)\//.test(path));
}

/** The values of a command's words before `--` that look like options. */
function optionsOf(words: readonly BashWord[]): string[] {
  const options: string[] = [];
  for (const word of words.slice(1)) {
    if (word.value === "--") break;
    if (word.value?.startsWith("-")) options.push(word.value);
  }
  return options;
}

/** git's `-c`, `--config-env` and `--exec-path=` can make it run anything; so do some subcommands' options. */
function gitRunsCommands(words: readonly BashWord[]): string | undefined {
  let index = 1;
  for (; index < words.length; index++) {
    const value = words[index]?.value;
    if (value === undefined || !value.startsWith("-")) break;
    if (value === "-c" || value === "--config-env" || value.startsWith("--config-env=") || value.startsWith("--exec-path="))
      return `git ${value.replace(/=.*/, "")} can make git run any program`;
    if (["-C", "--git-dir", "--work-tree", "--namespace", "--super-prefix"].includes(value)) index++;
  }
  const subcommand = words[index]?.value;
  const rest = words.slice(index + 1).map((word) => word.value ?? "");
  const runs =
    (subcommand === "submodule" && rest.includes("foreach")) ||
    (subcommand === "bisect" && rest[0] === "run") ||
    subcommand === "filter-branch" ||
    ((subcommand === "rebase" || subcommand === "difftool") && rest.some((value) => /^-[A-Za-z]*x/.test(value))) ||
    (subcommand === "clone" && rest.includes("-u")) ||
    rest.some((value) => /^--(upload-pack|receive-pack|exec|extcmd)(=|$)/.test(value));
  return runs ? `git ${subcommand} runs a command given to it` : undefined;
}

/** `printf -v 'a[$(…)]'`, `read "$name"`, `declare -n ref=$1`, `local -i n=x`: names whose evaluation can run commands. */
function findNamingProblem(builtin: string, words: readonly BashWord[]): string | undefined {
  const syntax = namingBuiltins[builtin] as (typeof namingBuiltins)[string];
  const names: BashWord[] = [];
  const letters = new Set<string>();
  let index = 1;
  for (; index < words.length; index++) {
    const word = words[index] as BashWord;
    const value = word.value;
    if (value === "--") {
      index++;
      break;
    }
    if (value === undefined || !/^[-+][A-Za-z]/.test(value)) break;
    for (let at = 1; at < value.length; at++) {
      const letter = value[at] as string;
      letters.add(letter);
      if (!syntax.valued.includes(letter)) continue;
      const attached = value.slice(at + 1);
      const argument = attached ? { text: attached, value: attached, glob: false } : words[++index];
      if (argument && syntax.naming.includes(letter)) names.push(argument);
      break;
    }
  }
  const operands = words.slice(index);
  if (letters.has("i") && syntax.operands === "assignments" && builtin !== "export" && builtin !== "readonly")
    return `${builtin} -i makes assignments to the variable arithmetic, which can run commands`;
  if (!letters.has("f") && !letters.has("F") && syntax.operands !== "none") names.push(...operands);
  for (const word of names) {
    const written = word.value ?? word.text;
    const equals = syntax.operands === "assignments" ? written.search(/\+?=/) : -1;
    const problem = nameProblem(equals < 0 ? written : written.slice(0, equals));
    if (problem) return `${builtin}: ${problem}`;
    if (letters.has("n") && builtin !== "export") {
      const target = equals < 0 || word.value === undefined ? undefined : word.value.slice(word.value.indexOf("=") + 1);
      const targetProblem = target === undefined ? "its target is only known when it runs" : nameProblem(target);
      if (targetProblem) return `${builtin} -n makes a reference whose expansion evaluates a name: ${targetProblem}`;
    }
  }
  return undefined;
}
