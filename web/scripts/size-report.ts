// Prints the gzipped JavaScript a visitor downloads on the first load of a public page:
// the entry chunk plus its static imports (lazy chunks such as the charts are left out).
// Used as a Vite plugin by the build, and runnable on its own: `tsx web/scripts/size-report.ts`.
import { gzipSync } from 'node:zlib';
import { readFileSync, readdirSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Plugin } from 'vite';

export interface SizeRow { file: string; bytes: number; gzip: number; firstLoad: boolean }

const kb = (n: number): string => `${(n / 1024).toFixed(1)} kB`;

export function formatReport(rows: SizeRow[]): string {
  const first = rows.filter((r) => r.firstLoad);
  const total = first.reduce((s, r) => s + r.gzip, 0);
  const lines = rows
    .sort((a, b) => b.gzip - a.gzip)
    .map((r) => `  ${r.firstLoad ? '*' : ' '} ${r.file.padEnd(40)} ${kb(r.bytes).padStart(10)}  gzip ${kb(r.gzip).padStart(9)}`);
  return [
    'JavaScript chunks (* = first load of public pages):',
    ...lines,
    `First-load JS of public pages: ${kb(total)} gzipped (budget 300 kB)`,
  ].join('\n');
}

export function firstLoadSizeReport(): Plugin {
  return {
    name: 'upfleet-first-load-size',
    apply: 'build',
    generateBundle(_options, bundle) {
      const chunks = Object.values(bundle).filter((c) => c.type === 'chunk');
      const entry = chunks.find((c) => c.type === 'chunk' && c.isEntry);
      const first = new Set<string>();
      const walk = (file: string): void => {
        if (first.has(file)) return;
        first.add(file);
        const c = bundle[file];
        if (c && c.type === 'chunk') c.imports.forEach(walk);
      };
      if (entry) walk(entry.fileName);
      const rows: SizeRow[] = chunks.map((c) => {
        const code = c.type === 'chunk' ? c.code : '';
        return { file: c.fileName, bytes: Buffer.byteLength(code), gzip: gzipSync(code).length, firstLoad: first.has(c.fileName) };
      });
      console.log(`\n${formatReport(rows)}\n`);
    },
  };
}

/** Reads a finished build: scripts and modulepreloads named in dist/index.html are the first load. */
export function reportDist(distDir: string): string {
  const html = readFileSync(path.join(distDir, 'index.html'), 'utf8');
  const named = new Set([...html.matchAll(/(?:src|href)="\/?(assets\/[^"]+\.js)"/g)].map((m) => m[1]));
  const rows = readdirSync(path.join(distDir, 'assets'))
    .filter((f) => f.endsWith('.js'))
    .map((f) => {
      const code = readFileSync(path.join(distDir, 'assets', f));
      return { file: `assets/${f}`, bytes: code.length, gzip: gzipSync(code).length, firstLoad: named.has(`assets/${f}`) };
    });
  return formatReport(rows);
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  console.log(reportDist(path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', 'dist')));
}
