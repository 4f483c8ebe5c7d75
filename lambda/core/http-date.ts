/**
 * The `Date` header: IMF-fixdate (RFC 9110 §5.6.7), formatted and parsed strictly.
 *
 * Only the preferred format is accepted (`Sun, 06 Nov 1994 08:49:37 GMT`); the obsolete RFC 850
 * and asctime forms, other zones, and impossible dates are refused, because the signer signs the
 * exact header text and a lenient parser would hide a signer bug.
 */

const DAYS = ['Sun', 'Mon', 'Tue', 'Wed', 'Thu', 'Fri', 'Sat'] as const;
const MONTHS = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'] as const;
const IMF_FIXDATE = /^(Mon|Tue|Wed|Thu|Fri|Sat|Sun), (\d{2}) (Jan|Feb|Mar|Apr|May|Jun|Jul|Aug|Sep|Oct|Nov|Dec) (\d{4}) (\d{2}):(\d{2}):(\d{2}) GMT$/;

/** Formats unix seconds as IMF-fixdate, e.g. `Sat, 21 Nov 2026 22:47:17 GMT`. */
export function formatHttpDate(unixS: number): string {
  const d = new Date(Math.floor(unixS) * 1000);
  const pad = (n: number) => String(n).padStart(2, '0');
  return `${DAYS[d.getUTCDay()]}, ${pad(d.getUTCDate())} ${MONTHS[d.getUTCMonth()]} ${d.getUTCFullYear()} ${pad(d.getUTCHours())}:${pad(d.getUTCMinutes())}:${pad(d.getUTCSeconds())} GMT`;
}

/**
 * Parses an IMF-fixdate into unix seconds.
 * @returns undefined when the text is not a valid IMF-fixdate (including a wrong day name)
 */
export function parseHttpDate(value: string): number | undefined {
  const m = IMF_FIXDATE.exec(value);
  if (m === null) return undefined;
  const [, dayName, dd, mon, yyyy, hh, mi, ss] = m;
  const day = Number(dd);
  const month = MONTHS.indexOf(mon as (typeof MONTHS)[number]);
  const year = Number(yyyy);
  const hour = Number(hh);
  const minute = Number(mi);
  const second = Number(ss);
  if (hour > 23 || minute > 59 || second > 60 || day < 1) return undefined;
  // setUTCFullYear, not Date.UTC: Date.UTC reads years 0-99 as 1900-1999.
  const d = new Date(0);
  d.setUTCFullYear(year, month, day);
  d.setUTCHours(hour, minute, Math.min(second, 59), 0);
  const ms = d.getTime();
  // Reject 31 Feb and friends (the Date would roll them over) and a day name that does not fit.
  if (d.getUTCDate() !== day || d.getUTCMonth() !== month || DAYS[d.getUTCDay()] !== dayName) return undefined;
  return ms / 1000 + (second === 60 ? 1 : 0);
}
