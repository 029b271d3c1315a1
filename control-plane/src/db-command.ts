// `node control-plane/src/main.ts db copy --to postgres://…` (npm run db:copy, upfleet db copy):
// the database commands of the control-plane entry, run instead of starting the server.
import path from 'node:path';
import { redactSecretsIn, redactUrl } from './config';
import { copySqliteToPostgres } from './store/sql/copy';

const USAGE = 'usage: db copy --to postgres://USER:PASSWORD@HOST/DATABASE   (copies the stopped SQLite deployment in DATA_DIR into an empty Postgres)';

export interface DbCommandIo {
  dataDir: string;
  stdout(text: string): void;
  stderr(text: string): void;
}

/** Answers the exit code: 0 done, 1 the copy failed or was refused, 2 a usage mistake. */
export async function runDbCommand(args: string[], io: DbCommandIo): Promise<number> {
  const [verb, ...rest] = args;
  let to: string | undefined;
  for (let i = 0; i < rest.length; i++) {
    if (rest[i] === '--to') to = rest[++i];
    else if (rest[i].startsWith('--to=')) to = rest[i].slice(5);
    else {
      io.stderr(`upfleet: unknown argument '${rest[i]}'\n${USAGE}\n`);
      return 2;
    }
  }
  if (verb !== 'copy' || !to) {
    io.stderr(`upfleet: ${verb === 'copy' ? '--to is required' : `unknown db command '${verb ?? ''}'`}\n${USAGE}\n`);
    return 2;
  }
  if (!/^postgres(ql)?:\/\/[^\s]+$/.test(to)) {
    io.stderr(`upfleet: --to must be a postgres:// URL (got '${redactUrl(to)}')\n`);
    return 2;
  }
  const shown = redactUrl(to);
  io.stdout(`Copying ${path.join(io.dataDir, 'upfleet.db')} into ${shown}\n`);
  try {
    let total = 0;
    const copied = await copySqliteToPostgres({
      dataDir: io.dataDir, to,
      onTable: (t) => {
        total += t.rows;
        io.stdout(`  ${t.table.padEnd(32)} ${String(t.rows).padStart(9)}\n`);
      },
    });
    io.stdout(`${copied.length} tables, ${total} rows; the counts are equal in both databases. Start the control plane with DATABASE_URL set to it (the same SECRET_KEY reads its secrets).\n`);
    return 0;
  } catch (err) {
    io.stderr(`upfleet: db copy failed: ${redactSecretsIn((err as Error).message, to)}\n`);
    return 1;
  }
}
