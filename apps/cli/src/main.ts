import { migrateToLatest, pendingMigrations } from '@cordon/db';
import { Command, Option } from 'commander';
import pino from 'pino';
import { addAgentCommand } from './agent/command.ts';
import { ConfigError, resolveServeConfig, SERVE_SETTINGS, type ServeConfig, settingsEnvironment } from './config.ts';
import { openConfiguredDatabase } from './database.ts';

const print = (line: string) => process.stdout.write(`${line}\n`);

/** `--config-file` / `CORDON_CONFIG_FILE`: the settings file of {@link settingsEnvironment}, read again on SIGHUP. */
function configFileOption(): Option {
  return new Option(
    '--config-file <path>',
    'NAME=value settings (CORDON_* variables), under the environment and the flags; read again on SIGHUP',
  ).env('CORDON_CONFIG_FILE');
}

/** Adds the given settings as options; the help names each one's environment variable and default. */
function addSettings(cmd: Command, keys?: ReadonlyArray<keyof ServeConfig>): Command {
  for (const s of SERVE_SETTINGS) {
    if (keys && !keys.includes(s.key)) continue;
    const help = s.defaultValue === undefined ? s.description : `${s.description} (default ${s.defaultValue})`;
    cmd.addOption(new Option(s.flag, help).env(s.env));
  }
  return cmd;
}

/**
 * Runs the `cordon` command line.
 * @param argv process.argv
 */
export async function main(argv: string[]): Promise<void> {
  // Whatever any command creates (data directory, database, key file) is private (docs/security.md).
  process.umask(0o077);
  const program = new Command('cordon').description('Cordon: multi-tenant DNS content filtering').showHelpAfterError();

  addSettings(
    program
      .command('serve')
      .description('run the console, /restapi, the resolver and the block page')
      .addOption(configFileOption()),
  ).action(async (flags: Record<string, string | undefined>) => {
    const settings = () => resolveServeConfig(flags, settingsEnvironment(flags.configFile, process.env));
    const config = settings();
    // One JSON line per event; each role logs through its child with `role` (docs/operations.md "Logs").
    const logger = pino({ level: config.logLevel });
    // Loaded here so that migrate and import do not load the API and the resolver.
    const { startCordon } = await import('./commands/serve.ts');
    const running = await startCordon(config, logger, print);
    let stopping = false;
    const stop = async (signal: string) => {
      if (stopping) return;
      stopping = true;
      print(`cordon: ${signal} received, shutting down`);
      await running.close();
      print('cordon: stopped');
      process.exit(0);
    };
    // SIGHUP: the settings file and the certificate files are read again; what needs no restart is
    // applied without dropping a query (docs/operations.md "Configuration check and reload").
    process.on('SIGHUP', () => {
      void (async () => {
        try {
          const { applied, restartNeeded } = await running.reload(settings());
          print(
            `cordon: SIGHUP: reloaded ${applied.join(', ') || 'nothing'}${
              restartNeeded.length > 0 ? `; changed but applied only after a restart: ${restartNeeded.join(', ')}` : ''
            }`,
          );
        } catch (err) {
          logger.error({ role: 'serve', err }, 'SIGHUP: reload failed; the running settings stay');
          print(`cordon: SIGHUP: reload failed, the running settings stay: ${(err as Error).message}`);
        }
      })();
    });
    process.on('SIGINT', () => void stop('SIGINT'));
    process.on('SIGTERM', () => void stop('SIGTERM'));
    // The data-plane thread died: logged and everything stopped; exit non-zero for the supervisor.
    void running.failed.then(() => process.exit(1));
  });

  addSettings(
    program
      .command('migrate')
      .description('bring the database schema up to date')
      .option('--dry-run', 'list the migrations that would apply, and apply nothing'),
    ['dataDir', 'databaseUrl'],
  ).action(async (flags: Record<string, string | undefined>) => {
    const config = resolveServeConfig(flags, process.env);
    const handle = openConfiguredDatabase(config);
    try {
      const { pending, unknown } = await pendingMigrations(handle);
      if (unknown.length > 0) {
        // A newer release's database: migrations are forward-only (docs/operations.md "Upgrades").
        throw new ConfigError(
          `the database has migrations this release does not know (${unknown.join(', ')}): it belongs to a newer release; run that release or restore a backup`,
        );
      }
      if (flags.dryRun) {
        print(pending.length > 0 ? `pending: ${pending.join(', ')}` : 'database is up to date');
        return;
      }
      const applied = await migrateToLatest(handle);
      print(applied.length > 0 ? `applied: ${applied.join(', ')}` : 'database is up to date');
    } finally {
      await handle.close();
    }
  });

  addSettings(
    program
      .command('create-admin')
      .description('add a console admin; prints a generated password once when none is given')
      .requiredOption('--email <email>', 'login e-mail (unique)')
      .addOption(
        new Option(
          '--password <password>',
          'password (spec-notes §5 rule); prefer the variable to keep it out of ps',
        ).env('CORDON_NEW_ADMIN_PASSWORD'),
      )
      .option('--name <name>', 'full name (default: the e-mail)')
      .addOption(
        new Option('--role <role>', 'role').choices(['system', 'sales', 'msp', 'customer']).makeOptionMandatory(),
      )
      .option('--msp-id <id>', 'the MSP of an msp admin')
      .option('--customer-id <id>', 'the customer of a customer admin'),
    ['dataDir', 'databaseUrl'],
  ).action(async (flags: Record<string, string | undefined>) => {
    const config = resolveServeConfig(flags, process.env);
    // Loaded here so that the other commands do not load the API.
    const { runCreateAdmin } = await import('./commands/create-admin.ts');
    await runCreateAdmin(config, flags, print);
  });

  const categories = program.command('categories').description('the category database');
  addSettings(
    categories
      .command('import')
      .description('import a UT1 blacklists directory (<category>/domains), or one domains, hosts or AdBlock file')
      .argument('<path>', 'the UT1 directory, or the feed file')
      .requiredOption('--format <format>', 'feed format: ut1, domains, hosts or adblock')
      .option('--category <id>', 'the category id of every name of a domains, hosts or adblock file'),
    ['dataDir', 'databaseUrl'],
  ).action(async (dir: string, flags: Record<string, string | undefined>) => {
    const config = resolveServeConfig(flags, process.env);
    const { importCategories } = await import('./commands/categories.ts');
    await importCategories(config, flags.format ?? '', dir, print, Boolean(process.stderr.isTTY), flags.category);
  });

  const powerbi = program.command('powerbi').description('the Power BI embed shown on the reporting summary');
  addSettings(
    powerbi
      .command('set')
      .description('store the https:// embed address; the console shows its "Open Power BI" link from then on')
      .argument('<url>', 'the report embed address (https://)'),
    ['dataDir', 'databaseUrl'],
  ).action(async (url: string, flags: Record<string, string | undefined>) => {
    const { runPowerBi } = await import('./commands/powerbi.ts');
    await runPowerBi(resolveServeConfig(flags, process.env), url, print);
  });
  addSettings(powerbi.command('clear').description('remove the embed address; the console hides the link'), [
    'dataDir',
    'databaseUrl',
  ]).action(async (flags: Record<string, string | undefined>) => {
    const { runPowerBi } = await import('./commands/powerbi.ts');
    await runPowerBi(resolveServeConfig(flags, process.env), null, print);
  });

  const configCommand = program.command('config').description('the settings of cordon serve');
  addSettings(
    configCommand
      .command('check')
      .description('validate the settings and the files they name, as cordon serve would, without starting anything')
      .addOption(configFileOption()),
  ).action(async (flags: Record<string, string | undefined>) => {
    const { checkConfig } = await import('./commands/config-check.ts');
    let env: NodeJS.ProcessEnv;
    try {
      env = settingsEnvironment(flags.configFile, process.env);
    } catch (err) {
      print(`error settings file: ${(err as Error).message}`);
      process.exitCode = 1;
      return;
    }
    const { findings } = await checkConfig(flags, env);
    for (const f of findings) print(`${f.level.padEnd(5)} ${f.check}: ${f.detail}`);
    const errors = findings.filter((f) => f.level === 'error').length;
    print(
      errors === 0 ? 'configuration ok' : `${errors} error(s): cordon serve would fail or run without a role's files`,
    );
    if (errors > 0) process.exitCode = 1;
  });

  addSettings(
    program
      .command('backup')
      .description('write an online backup of the SQLite deployment and its secret files to a new archive (.tar.gz)')
      .argument('<file>', 'the archive to write (must not exist)'),
    ['dataDir', 'databaseUrl', 'jwtKeyFile', 'caSecretFile'],
  ).action(async (file: string, flags: Record<string, string | undefined>) => {
    const [{ runBackup }, { CORDON_VERSION }] = await Promise.all([
      import('./commands/backup.ts'),
      import('./version.ts'),
    ]);
    await runBackup(resolveServeConfig(flags, process.env), file, CORDON_VERSION, print);
  });
  addSettings(
    program
      .command('restore')
      .description('restore a backup archive into an empty data directory')
      .argument('<file>', 'the archive cordon backup wrote'),
    ['dataDir', 'databaseUrl', 'jwtKeyFile', 'caSecretFile'],
  ).action(async (file: string, flags: Record<string, string | undefined>) => {
    const { runRestore } = await import('./commands/backup.ts');
    await runRestore(resolveServeConfig(flags, process.env), file, print);
  });

  addAgentCommand(program, print);

  try {
    await program.parseAsync(argv);
  } catch (err) {
    const message = err instanceof ConfigError ? err.message : err instanceof Error ? err.message : String(err);
    process.stderr.write(`cordon: ${message}\n`);
    process.exit(err instanceof ConfigError ? 2 : 1);
  }
}
