/**
 * The return day an out-of-office answer names ("back on 12 March",
 * "returning Monday", "until 2026-03-12"), so the next step waits for the
 * person instead of landing in an unattended inbox. Only phrasings that say
 * when the person is back count; an unclear or far date gives nothing, and
 * then nothing changes.
 */
const MONTHS = ['jan', 'feb', 'mar', 'apr', 'may', 'jun', 'jul', 'aug', 'sep', 'oct', 'nov', 'dec'];
const DAYS = ['sunday', 'monday', 'tuesday', 'wednesday', 'thursday', 'friday', 'saturday'];
const DAY_MS = 86_400_000;
/** A return further away than this is more likely a misreading than an absence. */
const MAX_AHEAD_DAYS = 120;

/** Words that introduce the return: the date after them is when the person is back (or the last day away). */
const LEAD_IN = String.raw`(?:back|return(?:ing)?|returns|in the office|available|reachable|away|out of (?:the )?office|ooo|absent|on (?:leave|vacation|holiday)|until|till|through)`;
const MONTH = String.raw`(jan(?:uary)?|feb(?:ruary)?|mar(?:ch)?|apr(?:il)?|may|june?|july?|aug(?:ust)?|sep(?:t(?:ember)?)?|oct(?:ober)?|nov(?:ember)?|dec(?:ember)?)\.?`;
const DAY = String.raw`(\d{1,2})(?:st|nd|rd|th)?`;
const WEEKDAY = String.raw`(?:(sunday|monday|tuesday|wednesday|thursday|friday|saturday),?\s+)?`;

const PATTERNS: {
  re: RegExp;
  read: (m: RegExpExecArray) => { month: number; day: number; year?: number } | { iso: string } | { weekday: number };
}[] = [
  // until 2026-03-12
  {
    re: new RegExp(String.raw`${LEAD_IN}\b[^.\n]{0,40}?\b(\d{4})-(\d{2})-(\d{2})\b`, 'i'),
    read: (m) => ({ iso: `${m[1]}-${m[2]}-${m[3]}` }),
  },
  // back on 12 March (2026) / back on Monday, 12th of March
  {
    re: new RegExp(String.raw`${LEAD_IN}\b[^.\n]{0,40}?\b${WEEKDAY}${DAY}\s+(?:of\s+)?${MONTH}(?:,?\s+(\d{4}))?`, 'i'),
    read: (m) => ({ day: Number(m[2]), month: monthOf(m[3]!), year: m[4] ? Number(m[4]) : undefined }),
  },
  // returning March 12th (, 2026) / until Friday, March 13
  {
    re: new RegExp(String.raw`${LEAD_IN}\b[^.\n]{0,40}?\b${WEEKDAY}${MONTH}\s+${DAY}(?:,?\s+(\d{4}))?`, 'i'),
    read: (m) => ({ month: monthOf(m[2]!), day: Number(m[3]), year: m[4] ? Number(m[4]) : undefined }),
  },
  // returning Monday / back next Tuesday
  {
    re: new RegExp(String.raw`${LEAD_IN}\s+(?:on\s+)?(?:next\s+)?(sunday|monday|tuesday|wednesday|thursday|friday|saturday)\b`, 'i'),
    read: (m) => ({ weekday: DAYS.indexOf(m[1]!.toLowerCase()) }),
  },
];

function monthOf(name: string): number {
  return MONTHS.indexOf(name.slice(0, 3).toLowerCase());
}

const isoDay = (ms: number) => new Date(ms).toISOString().slice(0, 10);

/** The return day (YYYY-MM-DD, UTC) named in the text, relative to when the answer arrived; undefined when none is clear. */
export function returnDateOf(text: string, receivedAt: number): string | undefined {
  const head = text.slice(0, 2000);
  const today = Math.floor(receivedAt / DAY_MS) * DAY_MS;
  for (const { re, read } of PATTERNS) {
    const match = re.exec(head);
    if (!match) continue;
    const got = read(match);
    let when: number;
    if ('iso' in got) when = Date.parse(`${got.iso}T00:00:00Z`);
    else if ('weekday' in got) {
      if (got.weekday < 0) continue;
      const ahead = (got.weekday - new Date(today).getUTCDay() + 7) % 7 || 7;
      when = today + ahead * DAY_MS;
    } else {
      if (got.month < 0 || got.day < 1 || got.day > 31) continue;
      const year = got.year ?? new Date(today).getUTCFullYear();
      when = Date.UTC(year, got.month, got.day);
      // No year and already past: the next one (a December answer about January).
      if (got.year === undefined && when < today) when = Date.UTC(year + 1, got.month, got.day);
      // Date.UTC rolls 31 February into March: refuse it.
      if (new Date(when).getUTCDate() !== got.day) continue;
    }
    if (!Number.isFinite(when) || when < today || when > today + MAX_AHEAD_DAYS * DAY_MS) continue;
    return isoDay(when);
  }
  return undefined;
}
