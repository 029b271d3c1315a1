// deploy/clickhouse/cluster-schema.sql is generated from schema.ts's tables for a cluster (Replicated
// engines under `<name>_local`, Distributed tables under the names the control plane queries).
// This test checks the checked-in file is the generated one, then parses both and fails when their
// tables, columns, keys, TTLs or rollup views drift.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { schemaStatements } from './schema';
import { clusterSchemaSql } from './cluster-schema';

interface TableShape {
  columns: string[];
  partitionBy?: string;
  orderBy?: string;
  ttl?: string;
}
interface ParsedSchema {
  tables: Map<string, TableShape>;
  /** view name → [target table, SELECT compared without whitespace and parentheses] */
  views: Map<string, [string, string]>;
  /** Distributed table → the local table it reads */
  distributed: Map<string, string>;
}

const CLUSTER_SQL = path.resolve(__dirname, '../../../deploy/clickhouse/cluster-schema.sql');

function splitTopLevel(list: string): string[] {
  const out: string[] = [];
  let depth = 0;
  let cur = '';
  for (const ch of list) {
    if (ch === '(') depth++;
    if (ch === ')') depth--;
    if (ch === ',' && depth === 0) {
      out.push(cur);
      cur = '';
    } else cur += ch;
  }
  out.push(cur);
  return out.map((c) => c.trim().replace(/\s+/g, ' ')).filter(Boolean);
}

const clause = (stmt: string, name: string) => new RegExp(`^\\s*${name} (.+?);?$`, 'm').exec(stmt)?.[1]?.trim();
const loose = (sql: string) => sql.replace(/[\s()]+/g, '');

function parseSchema(statements: string[]): ParsedSchema {
  const tables = new Map<string, TableShape>();
  const views = new Map<string, [string, string]>();
  const distributed = new Map<string, string>();
  for (const stmt of statements) {
    const table = /CREATE TABLE IF NOT EXISTS (\S+)(?: ON CLUSTER \S+)?\s*(?:\(([\s\S]*?)\)\s*ENGINE|AS (\S+))/.exec(stmt);
    if (table) {
      const [, name, columnList, copyOf] = table;
      const columns = columnList !== undefined ? splitTopLevel(columnList) : tables.get(copyOf)?.columns;
      if (!columns) throw new Error(`${name} copies ${copyOf}, which is not defined before it`);
      if (/ENGINE = Distributed\(/.test(stmt)) {
        distributed.set(name, copyOf);
        continue;
      }
      tables.set(name, { columns, partitionBy: clause(stmt, 'PARTITION BY'), orderBy: clause(stmt, 'ORDER BY'), ttl: clause(stmt, 'TTL') });
      continue;
    }
    const view = /CREATE MATERIALIZED VIEW IF NOT EXISTS (\S+)(?: ON CLUSTER \S+)?\s+TO (\S+) AS\s+([\s\S]+?);?\s*$/.exec(stmt);
    if (view) views.set(view[1], [view[2], loose(view[3])]);
  }
  return { tables, views, distributed };
}

function clusterStatements(): string[] {
  const sql = readFileSync(CLUSTER_SQL, 'utf8').replace(/^\s*--.*$/gm, '');
  return sql.split(/;\s*\n/).map((s) => s.trim()).filter(Boolean);
}

describe('deploy/clickhouse/cluster-schema.sql', () => {
  const single = parseSchema(schemaStatements('upfleet'));
  const cluster = parseSchema(clusterStatements());
  // On the cluster the columns live in `<name>_local`; compare those under the single-server names.
  const local = (name: string) => `${name}_local`;

  it('puts a Distributed table over a local table under every name the control plane queries', () => {
    expect([...single.tables.keys()].sort()).toEqual(['upfleet.check_results', 'upfleet.check_results_1h', 'upfleet.check_results_1m']);
    expect(Object.fromEntries(cluster.distributed)).toEqual(Object.fromEntries([...single.tables.keys()].map((n) => [n, local(n)])));
    expect([...cluster.tables.keys()].sort()).toEqual([...single.tables.keys()].map(local).sort());
  });

  it.each(['upfleet.check_results', 'upfleet.check_results_1m', 'upfleet.check_results_1h'])(
    'gives %s the same columns, types, partitioning, order and TTL as results/schema.ts',
    (name) => {
      expect(cluster.tables.get(local(name))).toEqual(single.tables.get(name));
    },
  );

  it('feeds the rollups with the same view names and the same SELECT', () => {
    expect([...cluster.views.keys()].sort()).toEqual([...single.views.keys()].sort());
    for (const [name, [target, select]] of single.views) {
      const [clusterTarget, clusterSelect] = cluster.views.get(name)!;
      expect(clusterTarget, name).toBe(local(target));
      expect(clusterSelect.replace('upfleet.check_results_local', 'upfleet.check_results'), name).toBe(select);
    }
  });
});

describe('the checked-in cluster schema', () => {
  it('is what `npm run gen:cluster-schema` makes from the column table (run it after changing columns.ts or schema.ts)', () => {
    expect(readFileSync(CLUSTER_SQL, 'utf8')).toBe(clusterSchemaSql());
  });
});
