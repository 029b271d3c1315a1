// The catalogue over a test's better-sqlite3 handle, its snapshot loaded (as foundation's start does).
import type { Db } from '../store/db';
import { createCatalogRepo, type CatalogRepo } from '../store/catalog-repo';
import { sqliteSql } from '../store/sql/open';

export async function loadedCatalog(db: Db): Promise<CatalogRepo> {
  const catalog = createCatalogRepo(sqliteSql(db).db);
  await catalog.load();
  return catalog;
}
