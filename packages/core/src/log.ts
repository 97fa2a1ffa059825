/**
 * Structured logging: one JSON object a line, so CloudWatch (and a terminal
 * pretty-printer) can read it. Values under secret-looking keys are replaced
 * before anything is written: a secret never reaches a log line.
 */
export type Level = 'debug' | 'info' | 'warn' | 'error';
export type Fields = Record<string, unknown>;

export interface Logger {
  debug(msg: string, fields?: Fields): void;
  info(msg: string, fields?: Fields): void;
  warn(msg: string, fields?: Fields): void;
  error(msg: string, fields?: Fields): void;
}

const SECRET_KEY = /pass(word)?|secret|token|authorization|api[-_]?key|refresh|credential|cookie/i;

/** Deep copy with secret-looking keys masked and errors made plain. */
export function redact(value: unknown, depth = 0): unknown {
  if (depth > 6) return '[deep]';
  if (value instanceof Error) {
    return { name: value.name, message: value.message, ...(value.cause ? { cause: redact(value.cause, depth + 1) } : {}) };
  }
  if (Array.isArray(value)) return value.map((v) => redact(v, depth + 1));
  if (value && typeof value === 'object') {
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, SECRET_KEY.test(k) ? '[redacted]' : redact(v, depth + 1)]));
  }
  return value;
}

export type Sink = (line: Fields) => void;

export const jsonSink: Sink = (line) => process.stdout.write(JSON.stringify(line) + '\n');

export function createLogger(sink: Sink = jsonSink, base: Fields = {}, minLevel: Level = 'info'): Logger {
  const order: Level[] = ['debug', 'info', 'warn', 'error'];
  const emit =
    (level: Level) =>
    (msg: string, fields: Fields = {}) => {
      if (order.indexOf(level) < order.indexOf(minLevel)) return;
      sink({ time: new Date().toISOString(), level, msg, ...(redact({ ...base, ...fields }) as Fields) });
    };
  return { debug: emit('debug'), info: emit('info'), warn: emit('warn'), error: emit('error') };
}

export const silentLogger: Logger = { debug() {}, info() {}, warn() {}, error() {} };

/**
 * A mail server's reply text with every address taken out: servers quote the
 * recipient (`550 5.1.1 <ann@client.com>: unknown`), and a log line must not
 * keep a lead's address after the lead is erased.
 */
export const withoutAddresses = (text: string): string =>
  // Word by word, so the pattern stays linear on a long run with no "@" (`\S+@\S+` would backtrack over it).
  text.replace(/[^\s<>"'(),;:]+/g, (word) => {
    const at = word.indexOf('@', 1);
    return at !== -1 && at < word.length - 1 ? '<address>' : word;
  });
