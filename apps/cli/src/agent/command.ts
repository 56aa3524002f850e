import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { type Command, Option } from 'commander';
import { ConfigError, parseHostPort } from '../config.ts';
import { parseTarget } from './rules.ts';

/** The raw flags of `cordon agent`. */
interface AgentFlags {
  server?: string;
  doh?: string;
  installKey?: string;
  stateDir?: string;
  listen?: string;
  systemResolver?: string;
  caFile?: string;
  user?: string;
  name?: string;
}

function url(text: string | undefined, what: string): string {
  if (!text) throw new ConfigError(`${what} is required`);
  try {
    const u = new URL(text);
    if (u.protocol !== 'https:' && u.protocol !== 'http:') throw new Error('scheme');
    return u.toString();
  } catch {
    throw new ConfigError(`${what}: expected an http(s):// URL, got "${text}"`);
  }
}

/**
 * Adds `cordon agent` to the program (docs/agent.md): flags, each with a `CORDON_AGENT_*` variable.
 * The agent module is loaded only when the command runs.
 */
export function addAgentCommand(program: Command, print: (line: string) => void): void {
  program
    .command('agent')
    .description('run the roaming agent: a loopback DNS forwarder sending queries to Cordon over DoH (docs/agent.md)')
    .addOption(
      new Option('--server <url>', "Cordon's console/API URL (enrolment, heartbeats)").env('CORDON_AGENT_SERVER'),
    )
    .addOption(
      new Option('--doh <url>', "Cordon's DNS-over-HTTPS URL, e.g. https://cordon.example:8053").env(
        'CORDON_AGENT_DOH',
      ),
    )
    .addOption(
      new Option('--install-key <key>', "the customer's install key (first start only)").env(
        'CORDON_AGENT_INSTALL_KEY',
      ),
    )
    .addOption(
      new Option('--state-dir <dir>', 'where the device key and the last configuration are kept')
        .env('CORDON_AGENT_STATE_DIR')
        .default('./cordon-agent'),
    )
    .addOption(
      new Option('--listen <host:port>', 'loopback DNS listen address, UDP and TCP')
        .env('CORDON_AGENT_LISTEN')
        .default('127.0.0.1:53'),
    )
    .addOption(
      new Option('--system-resolver <ip[:port]>', 'resolver for ByPass OTG names (default: /etc/resolv.conf)').env(
        'CORDON_AGENT_SYSTEM_RESOLVER',
      ),
    )
    .addOption(
      new Option('--ca-file <pem>', "extra CA certificates to trust (the deployment's root CA)").env(
        'CORDON_AGENT_CA_FILE',
      ),
    )
    .addOption(
      new Option('--user <name>', 'the OS user to report (default: the logged-in user)').env('CORDON_AGENT_USER'),
    )
    .addOption(new Option('--name <name>', 'the device name reported at enrolment (default: the host name)'))
    .action(async (flags: AgentFlags) => {
      const listen = parseHostPort(flags.listen ?? '', '--listen / CORDON_AGENT_LISTEN');
      const system = flags.systemResolver ? parseTarget(flags.systemResolver) : undefined;
      if (system === null)
        throw new ConfigError(`--system-resolver: expected ip or ip:port, got "${flags.systemResolver}"`);
      const { startAgent } = await import('./index.ts');
      const agent = await startAgent({
        server: url(flags.server, '--server / CORDON_AGENT_SERVER'),
        doh: url(flags.doh, '--doh / CORDON_AGENT_DOH'),
        installKey: flags.installKey,
        stateDir: resolve(flags.stateDir ?? './cordon-agent'),
        listen,
        systemResolver: system,
        ca: flags.caFile ? readFileSync(flags.caFile, 'utf8') : undefined,
        user: flags.user,
        name: flags.name,
        log: (line) => print(`cordon agent: ${line}`),
      });
      print(`cordon agent: listening on ${agent.address.address}:${agent.address.port}`);
      const stop = async (signal: string) => {
        print(`cordon agent: ${signal} received, stopping`);
        await agent.close();
        process.exit(0);
      };
      process.on('SIGINT', () => void stop('SIGINT'));
      process.on('SIGTERM', () => void stop('SIGTERM'));
      process.on('SIGHUP', () => void agent.heartbeat());
    });
}
