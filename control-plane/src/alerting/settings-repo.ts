import type { AlertThresholdInput } from '@upfleet/proto/rest';
import type { Db } from '../store/db';

export interface ThresholdRow {
  threshold_id: number;
  monitor_type_id: number;
  region_id: number | null;
  threshold_value: number;
  threshold_operator: string;
  is_enabled: number;
}
export interface AlertMethodRow {
  alert_method_id: number;
  platform: string;
  is_enabled: number;
  config_enc: string;
}

export function createAlertsRepo(db: Db) {
  const q = {
    thresholds: db.prepare(`SELECT t.threshold_id, t.monitor_type_id, t.region_id, t.threshold_value, t.threshold_operator, t.is_enabled
      FROM alert_thresholds t WHERE t.url_id = ? AND t.user_id = ? ORDER BY t.monitor_type_id, t.region_id`),
    delThresholds: db.prepare('DELETE FROM alert_thresholds WHERE url_id = ? AND user_id = ?'),
    insThreshold: db.prepare(`INSERT INTO alert_thresholds (url_id, user_id, monitor_type_id, region_id, threshold_value, threshold_operator, is_enabled)
      VALUES (?, ?, ?, ?, ?, ?, ?)`),
    methods: db.prepare('SELECT alert_method_id, platform, is_enabled, config_enc FROM alert_methods WHERE user_id = ? ORDER BY alert_method_id'),
    method: db.prepare('SELECT alert_method_id, platform, is_enabled, config_enc FROM alert_methods WHERE alert_method_id = ? AND user_id = ?'),
    methodByPlatform: db.prepare('SELECT alert_method_id FROM alert_methods WHERE user_id = ? AND platform = ?').pluck(),
    insMethod: db.prepare('INSERT INTO alert_methods (user_id, platform, is_enabled, config_enc) VALUES (?, ?, ?, ?)'),
    updMethod: db.prepare('UPDATE alert_methods SET is_enabled = ?, config_enc = ? WHERE alert_method_id = ? AND user_id = ?'),
    delMethod: db.prepare('DELETE FROM alert_methods WHERE alert_method_id = ? AND user_id = ?'),
  };
  return {
    thresholds: (userId: number, urlId: number) => q.thresholds.all(urlId, userId) as ThresholdRow[],
    replaceThresholds: db.transaction((userId: number, urlId: number, items: AlertThresholdInput[]) => {
      q.delThresholds.run(urlId, userId);
      for (const t of items) {
        q.insThreshold.run(urlId, userId, t.monitor_type_id, t.region_id, t.threshold_value, t.threshold_operator, t.is_enabled ? 1 : 0);
      }
    }),
    methods: (userId: number) => q.methods.all(userId) as AlertMethodRow[],
    method: (userId: number, id: number) => q.method.get(id, userId) as AlertMethodRow | undefined,
    hasPlatform: (userId: number, platform: string) => q.methodByPlatform.get(userId, platform) !== undefined,
    insertMethod: (userId: number, platform: string, enabled: boolean, configEnc: string): number =>
      Number(q.insMethod.run(userId, platform, enabled ? 1 : 0, configEnc).lastInsertRowid),
    updateMethod: (userId: number, id: number, enabled: boolean, configEnc: string) => q.updMethod.run(enabled ? 1 : 0, configEnc, id, userId).changes === 1,
    deleteMethod: (userId: number, id: number) => q.delMethod.run(id, userId).changes === 1,
  };
}
export type AlertsRepo = ReturnType<typeof createAlertsRepo>;
