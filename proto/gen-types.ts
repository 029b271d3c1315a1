// Generates the TypeScript types of the gRPC messages (proto/generated/) from the .proto with
// @grpc/proto-loader's own generator, with the flags that match the loader's options in index.ts
// (keepCase, longs as Number, enums as String, defaults, oneofs), so the types are the shapes the
// loader gives. Run: npm run gen:proto. proto/generated.test.ts checks the checked-in copy is current.
import { spawnSync } from 'node:child_process';
import { rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { LOADER_OPTIONS } from './index';

const here = path.dirname(fileURLToPath(import.meta.url));
export const GENERATED_DIR = path.join(here, 'generated');
const PROTO_FILE = 'upfleet/agent/v1/agent_service.proto';

/** The generator's flags, read from the loader's options so the two cannot drift apart. */
export function generatorArgs(): string[] {
  const o = LOADER_OPTIONS;
  const args = ['--grpcLib=@grpc/grpc-js', '--includeComments'];
  if (o.keepCase) args.push('--keepCase');
  if (o.longs === Number) args.push('--longs=Number');
  else if (o.longs === String) args.push('--longs=String');
  if (o.enums === String) args.push('--enums=String');
  if (o.defaults) args.push('--defaults');
  if (o.oneofs) args.push('--oneofs');
  return args;
}

/** Writes the generated types into `outDir` (emptied first). */
export function generateTypes(outDir: string): void {
  const bin = path.join(path.dirname(createRequire(import.meta.url).resolve('@grpc/proto-loader/package.json')), 'build/bin/proto-loader-gen-types.js');
  rmSync(outDir, { recursive: true, force: true });
  // Run from the repo root so each file's "Original file" line names the .proto the same way everywhere.
  const r = spawnSync(process.execPath, [bin, ...generatorArgs(), '-I', 'proto', '-O', outDir, PROTO_FILE], { cwd: path.dirname(here), encoding: 'utf8' });
  if (r.status !== 0) throw new Error(`proto-loader-gen-types failed: ${r.stderr || r.stdout}`);
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  generateTypes(GENERATED_DIR);
  process.stdout.write(`generated ${path.relative(process.cwd(), GENERATED_DIR)}/\n`);
}
