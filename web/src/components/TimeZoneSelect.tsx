// Every zone picker of the app: the IANA zones of the browser (daylight saving time follows the
// place), then the fixed offsets accepted since before IANA names, for whoever wants no DST.
// A stored value neither lists (an old alias) is kept as the first option.
import { TIMEZONES } from '@upfleet/proto/schemas';
import { timeZoneChoices } from '@upfleet/proto/time-zone';

const FIXED = TIMEZONES.filter((z) => z !== 'UTC');

export function TimeZoneSelect({ id, value, onChange }: { id: string; value: string; onChange: (zone: string) => void }) {
  const zones = timeZoneChoices(value).filter((z) => z === value || !FIXED.includes(z));
  return (
    <select id={id} value={value} onChange={(e) => onChange(e.target.value)}>
      <optgroup label="Time zones">
        {zones.map((z) => <option key={z} value={z}>{z}</option>)}
      </optgroup>
      <optgroup label="Fixed offsets (no daylight saving time)">
        {FIXED.filter((z) => !zones.includes(z)).map((z) => <option key={z} value={z}>{z}</option>)}
      </optgroup>
    </select>
  );
}

/** The zones a free-text field suggests (a heartbeat cron's zone): the same list, as a datalist. */
export function TimeZoneList({ id }: { id: string }) {
  return (
    <datalist id={id}>
      {timeZoneChoices('').map((z) => <option key={z} value={z} />)}
    </datalist>
  );
}
