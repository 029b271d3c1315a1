// Where a screenshot's bytes live, behind a small interface: on one node files under
// DATA_DIR/screenshots/<workspace>/<endpoint>/<id>.<png|webp>; a cluster can put them in the
// database or an object store by giving the screenshot store another ScreenshotBlobs.
import { mkdir, readFile, rename, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { extensionOf, type ScreenshotMime } from './screenshot-id';

export interface BlobKey {
  workspaceId: number;
  endpointId: number;
  id: string;
  mime: ScreenshotMime;
}

export interface ScreenshotBlobs {
  put(key: BlobKey, data: Buffer): Promise<void>;
  /** The bytes, or null when they are gone. */
  get(key: BlobKey): Promise<Buffer | null>;
  /** Deleting what is not there is no error. */
  delete(key: BlobKey): Promise<void>;
}

/** Files under `dir` (DATA_DIR/screenshots). Keys are numbers and hex ids: no path can escape `dir`. */
export function createFileBlobs(dir: string): ScreenshotBlobs {
  const fileOf = (k: BlobKey) => path.join(dir, String(Math.trunc(k.workspaceId)), String(Math.trunc(k.endpointId)), `${k.id}.${extensionOf(k.mime)}`);
  return {
    async put(key, data) {
      const file = fileOf(key);
      await mkdir(path.dirname(file), { recursive: true, mode: 0o700 });
      // Written aside and renamed: a reader never sees half a file.
      const tmp = `${file}.${process.pid}.tmp`;
      await writeFile(tmp, data, { mode: 0o600 });
      await rename(tmp, file);
    },
    async get(key) {
      try {
        return await readFile(fileOf(key));
      } catch (err) {
        if ((err as NodeJS.ErrnoException).code === 'ENOENT') return null;
        throw err;
      }
    },
    async delete(key) {
      await rm(fileOf(key), { force: true });
    },
  };
}
