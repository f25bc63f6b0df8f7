/**
 * A classic-BPF seccomp program for bubblewrap's `--seccomp FD`: everything is allowed except
 * - `socket(AF_UNIX, …)`: a Unix socket reaches whatever listens on the host by path (the Docker daemon, ssh-agent,
 *   D-Bus), which a network namespace does not separate; `socketpair` stays allowed (pipes between a process and its
 *   children, as Node's child_process makes them, use it and reach nothing outside);
 * - `io_uring_setup`: a ring can open sockets without calling `socket`;
 * - every system call of another ABI (i386, x32), whose numbers this program does not know: the process is killed.
 *
 * Written out by hand because it is 13 instructions and libseccomp would be a native dependency; the layout is the
 * kernel's (`struct sock_filter`, `struct seccomp_data`), see linux/filter.h and linux/seccomp.h.
 */

type Instruction = { code: number; jumpTrue: number; jumpFalse: number; value: number };

// linux/bpf_common.h
const loadWordAbsolute = 0x20; // BPF_LD | BPF_W | BPF_ABS
const jumpIfEqual = 0x15; // BPF_JMP | BPF_JEQ | BPF_K
const jumpIfAnyBit = 0x45; // BPF_JMP | BPF_JSET | BPF_K
const returnValue = 0x06; // BPF_RET | BPF_K
// linux/seccomp.h
const allow = 0x7fff0000;
const killProcess = 0x80000000;
const errno = (code: number) => 0x00050000 | code;
const permissionDenied = 1; // EPERM
const addressFamilyUnsupported = 97; // EAFNOSUPPORT: what programs expect when a socket family is unavailable
// struct seccomp_data: int nr; u32 arch; u64 instruction_pointer; u64 args[6] (the low half of args[0] at 16 on little-endian)
const offsetOfNumber = 0;
const offsetOfArchitecture = 4;
const offsetOfFirstArgument = 16;
const unixFamily = 1; // AF_UNIX

/** The system call numbers the program needs, per architecture (linux/audit.h's AUDIT_ARCH_*). */
const architectures: Readonly<Record<string, { audit: number; socket: number; ioUringSetup: number; x32Bit?: number }>> = {
  x64: { audit: 0xc000003e, socket: 41, ioUringSetup: 425, x32Bit: 0x40000000 },
  arm64: { audit: 0xc00000b7, socket: 198, ioUringSetup: 425 },
};

/** Whether {@link seccompFilter} knows this machine's architecture (`process.arch`). */
export function seccompSupported(arch: string = process.arch): boolean {
  return arch in architectures;
}

/**
 * The filter as the bytes bubblewrap reads from `--seccomp FD`. `allowUnixSockets` leaves `socket(AF_UNIX)` open
 * (`network.allowAllUnixSockets`). Throws for an architecture it does not know (see {@link seccompSupported}).
 */
export function seccompFilter(options: { allowUnixSockets?: boolean | undefined; arch?: string | undefined } = {}): Buffer {
  const arch = architectures[options.arch ?? process.arch];
  if (!arch) throw new Error(`the sandbox's seccomp filter knows x64 and arm64, not ${options.arch ?? process.arch}`);
  // Jumps count instructions forward from the next one; the three outcomes sit at the end.
  const program: Instruction[] = [];
  const at = { allow: -1, refuse: -1, deny: -1, kill: -1 };
  const pending: { index: number; field: "jumpTrue" | "jumpFalse"; target: keyof typeof at }[] = [];
  const add = (code: number, value: number, jumpTrue: keyof typeof at | 0 = 0, jumpFalse: keyof typeof at | 0 = 0) => {
    const index = program.push({ code, value, jumpTrue: 0, jumpFalse: 0 }) - 1;
    if (jumpTrue) pending.push({ index, field: "jumpTrue", target: jumpTrue });
    if (jumpFalse) pending.push({ index, field: "jumpFalse", target: jumpFalse });
  };
  add(loadWordAbsolute, offsetOfArchitecture);
  add(jumpIfEqual, arch.audit, 0, "kill");
  add(loadWordAbsolute, offsetOfNumber);
  if (arch.x32Bit !== undefined) add(jumpIfAnyBit, arch.x32Bit, "kill");
  add(jumpIfEqual, arch.ioUringSetup, "deny");
  if (options.allowUnixSockets) add(returnValue, allow);
  else {
    add(jumpIfEqual, arch.socket, 0, "allow");
    add(loadWordAbsolute, offsetOfFirstArgument);
    add(jumpIfEqual, unixFamily, "refuse", "allow");
  }
  at.allow = program.push({ code: returnValue, value: allow, jumpTrue: 0, jumpFalse: 0 }) - 1;
  at.refuse = program.push({ code: returnValue, value: errno(addressFamilyUnsupported), jumpTrue: 0, jumpFalse: 0 }) - 1;
  at.deny = program.push({ code: returnValue, value: errno(permissionDenied), jumpTrue: 0, jumpFalse: 0 }) - 1;
  at.kill = program.push({ code: returnValue, value: killProcess, jumpTrue: 0, jumpFalse: 0 }) - 1;
  for (const { index, field, target } of pending) (program[index] as Instruction)[field] = at[target] - index - 1;
  const bytes = Buffer.alloc(program.length * 8);
  program.forEach((instruction, index) => {
    bytes.writeUInt16LE(instruction.code, index * 8);
    bytes.writeUInt8(instruction.jumpTrue, index * 8 + 2);
    bytes.writeUInt8(instruction.jumpFalse, index * 8 + 3);
    bytes.writeUInt32LE(instruction.value >>> 0, index * 8 + 4);
  });
  return bytes;
}
