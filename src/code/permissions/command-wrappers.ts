import type { BashAssignment, BashWord } from "./bash-word-types.js";
import { baseName } from "./command-runners.js";

/** How a wrapper's options are written, so that the command it runs can be found after them. */
type WrapperSyntax = {
  /** Options without a value (`--foreground`); single letters may be grouped (`-ac`). */
  flags?: readonly string[];
  /** Options whose value is the next word (`-k 5`). */
  valued?: readonly string[];
  /** Options with their value in the same word (`-k5`, `--kill-after=5`). */
  attached?: RegExp;
  /** Options after which no command follows (`ionice -p PID`): the wrapper is then the command itself. */
  alone?: readonly string[];
  /** Words between the options and the command: timeout's duration, chrt's priority, taskset's mask. */
  operands?: number;
};

/**
 * Wrappers that run the rest of their words as a command, with options this check can read. They are taken off
 * before a command is matched, as Claude Code does: `timeout 30 npm test` is judged as `npm test` (and
 * `Bash(timeout *)` allows nothing more). Wrappers whose options cannot be read reliably are runners instead
 * (command-runners.ts): what they run cannot be judged.
 */
const wrappers: Readonly<Record<string, WrapperSyntax>> = {
  nohup: {},
  builtin: {},
  catchsegv: {},
  eatmydata: {},
  nocache: {},
  time: {
    flags: ["-p", "--portability", "-v", "--verbose", "-q", "--quiet", "-a", "--append"],
    valued: ["-f", "--format"],
    attached: /^(-f.+|--format=.*)$/,
  },
  nice: { valued: ["-n", "--adjustment"], attached: /^(-n.+|--adjustment=.*|-\d+)$/ },
  timeout: {
    flags: ["--preserve-status", "--foreground", "-v", "--verbose"],
    valued: ["-k", "-s", "--kill-after", "--signal"],
    attached: /^(-[ks].+|--kill-after=.*|--signal=.*)$/,
    operands: 1,
  },
  stdbuf: { valued: ["-i", "-o", "-e"], attached: /^(-[ioe].+|--(input|output|error)=.*)$/ },
  exec: { flags: ["-c", "-l"], valued: ["-a"] },
  ionice: {
    flags: ["-t", "--ignore"],
    valued: ["-c", "--class", "-n", "--classdata"],
    attached: /^(-[cn].+|--(class|classdata)=.*)$/,
    alone: ["-p", "--pid", "-P", "--pgid", "-u", "--uid"],
  },
  chrt: {
    flags: ["-a", "--all-tasks", "-v", "--verbose", "-b", "--batch", "-d", "--deadline", "-f", "--fifo", "-i", "--idle"],
    valued: ["-T", "--sched-runtime", "-P", "--sched-period", "-D", "--sched-deadline"],
    attached: /^--sched-(runtime|period|deadline)=.*$/,
    alone: ["-p", "--pid", "-m", "--max"],
    operands: 1,
  },
  taskset: { flags: ["-a", "--all-tasks", "-c", "--cpu-list"], alone: ["-p", "--pid"], operands: 1 },
  numactl: {
    flags: ["-l", "--localalloc", "-a", "--all", "-b", "--balancing", "--strict", "-t", "--touch"],
    valued: ["-i", "--interleave", "-m", "--membind", "-N", "--cpunodebind", "-C", "--physcpubind", "-p", "--preferred"],
    attached: /^(-[imNCp].+|--(interleave|membind|cpunodebind|physcpubind|preferred)=.*)$/,
    alone: ["-s", "--show", "-H", "--hardware"],
  },
  cgexec: { flags: ["--sticky"], valued: ["-g"], attached: /^-g.+$/ },
  proxychains: { flags: ["-q"], valued: ["-f"], attached: /^-f.+$/ },
  proxychains4: { flags: ["-q"], valued: ["-f"], attached: /^-f.+$/ },
  unbuffer: { flags: ["-p"] },
  faketime: { flags: ["-m", "-f", "--exclude-monotonic", "--disable-shm"], operands: 1 },
  "dbus-run-session": { valued: ["--config-file"], attached: /^--config-file=.*$/ },
  "xvfb-run": {
    flags: ["-a", "--auto-servernum", "-l", "--listen-tcp"],
    valued: ["-n", "--server-num", "-p", "--xauth-protocol", "-s", "--server-args", "-w", "--wait"],
    attached: /^(-[npsw].+|--(server-num|xauth-protocol|server-args|wait)=.*)$/,
  },
  caffeinate: { flags: ["-d", "-i", "-m", "-s", "-u"], valued: ["-t", "-w"] },
  chronic: { flags: ["-e", "-v"] },
  ifne: { flags: ["-n"] },
};

/** The words of a command with its wrappers taken off. */
export type UnwrappedCommand = {
  /** What allow rules and the modes judge: the words after the wrappers named bare (`timeout 5`, `env A=1`). */
  words: readonly BashWord[];
  /**
   * What runs, for deny and ask rules and for what cannot be judged: wrappers written as paths (`/usr/bin/env`,
   * `./timeout`) are taken off too. The same array as `words` when there are none.
   */
  runs: readonly BashWord[];
  /** Why the wrappers' words cannot be read (an unknown option, one only known when it runs), or undefined. */
  unjudgeable: string | undefined;
};

/**
 * Takes wrappers off a command's words; assignments made by a bare `env` are added to `assignments`. A wrapper
 * written as a path may be any program (`./env` in the workspace), so allow rules and the modes stop at it; deny
 * rules look through it, by its base name, at what it would run.
 */
export function stripWrappers(words: readonly BashWord[], assignments: BashAssignment[]): UnwrappedCommand {
  let rest = words;
  let judged: readonly BashWord[] | undefined;
  const pathAssignments: BashAssignment[] = [];
  for (let round = 0; round < 16; round++) {
    const name = rest[0]?.value;
    const base = name === undefined ? undefined : baseName(name);
    if (base === undefined || !(base === "env" || base === "command" || Object.hasOwn(wrappers, base))) break;
    const written = name !== base;
    if (written) judged ??= rest;
    const at =
      base === "env"
        ? skipEnv(rest, judged ? pathAssignments : assignments)
        : base === "command"
          ? skipCommand(rest)
          : skipWrapper(rest, base);
    if (typeof at === "string") return { words: judged ?? rest, runs: rest, unjudgeable: at };
    if (at === 0 || at >= rest.length) break; // the wrapper alone (`nohup`, `env`) is the command
    rest = rest.slice(at);
  }
  return { words: judged ?? rest, runs: rest, unjudgeable: undefined };
}

function skipWrapper(words: readonly BashWord[], base: string): number | string {
  const syntax = wrappers[base] as WrapperSyntax;
  const at = skipOptions(words, 1, syntax);
  if (typeof at === "string" || at === 0) return at;
  return Math.min(words.length, at + (syntax.operands ?? 0));
}

function skipCommand(words: readonly BashWord[]): number | string {
  const option = words[1]?.value;
  if (option === "-v" || option === "-V") return 0; // `command -v x` looks a name up: it is the command itself
  return skipOptions(words, 1, { flags: ["-p"] });
}

function skipEnv(words: readonly BashWord[], assignments: BashAssignment[]): number | string {
  const at = skipOptions(words, 1, {
    flags: ["-i", "-", "--ignore-environment", "-0", "--null"],
    valued: ["-u", "--unset"],
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
}

/** The index of the first word after a wrapper's options (0: an option says no command follows), or why they cannot be read. */
function skipOptions(words: readonly BashWord[], from: number, syntax: WrapperSyntax): number | string {
  const { flags = [], valued = [], alone = [] } = syntax;
  let index = from;
  while (index < words.length) {
    const word = words[index] as BashWord;
    const value = word.value;
    if (value === undefined) return `the option \`${word.text}\` of \`${words[0]?.text}\` is only known when it runs`;
    if (value === "--") return index + 1;
    if (!value.startsWith("-") || (value === "-" && !flags.includes("-"))) return index;
    if (flags.includes(value) || syntax.attached?.test(value)) index += 1;
    else if (valued.includes(value)) index += 2;
    else if (alone.includes(value)) return 0;
    else if (/^-[A-Za-z]{2,}$/.test(value) && [...value.slice(1)].every((letter) => [...flags, ...alone].includes(`-${letter}`))) {
      if ([...value.slice(1)].some((letter) => alone.includes(`-${letter}`))) return 0;
      index += 1;
    } else return `\`${baseName(words[0]?.value ?? "")} ${value}\` is an option this check does not know`;
  }
  return index;
}
