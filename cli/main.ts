/**
 * The `http-api-conformance` command: dispatches to one module per sub-command.
 * Every sub-command resolves to a process exit code (0 success, 1 failure, 2 usage or environment error).
 */
const USAGE = `usage: http-api-conformance <command> [options]

commands:
  run            run the conformance suite against a target (default: the embedded reference server)
  serve          start the reference server
  client-check   certify an HTTP client against the client retry rules
  init           write a target profile from an OpenAPI document
  help           print this message

Run "http-api-conformance <command> --help" for the options of a command.`;

type Command = (args: string[]) => Promise<number>;

const commands: Record<string, () => Promise<Command>> = {
  run: async () => (await import('./run/command.ts')).runCommand,
  serve: async () => (await import('./serve/command.ts')).serveCommand,
  'client-check': async () => (await import('./client-check/command.ts')).clientCheckCommand,
  init: async () => (await import('./init/command.ts')).initCommand,
};

/** Runs the command line `argv` (without node and script) and returns the exit code. */
export async function main(argv: string[]): Promise<number> {
  const [name, ...rest] = argv;
  if (name === undefined || name === 'help' || name === '--help' || name === '-h') {
    console.log(USAGE);
    return name === undefined ? 2 : 0;
  }
  const load = commands[name];
  if (!load) {
    console.error(`http-api-conformance: unknown command "${name}"\n\n${USAGE}`);
    return 2;
  }
  const command = await load();
  return command(rest);
}
