import type { Fields, Sink } from '@outbound/core/log';

const colors = { debug: '\x1b[90m', info: '\x1b[36m', warn: '\x1b[33m', error: '\x1b[31m' } as Record<string, string>;

/**
 * On a terminal, one readable line per log entry; piped elsewhere, the same
 * JSON line CloudWatch gets.
 */
export function terminalSink(stream: NodeJS.WriteStream = process.stdout): Sink {
  if (!stream.isTTY) return (line) => stream.write(JSON.stringify(line) + '\n');
  return (line: Fields) => {
    const { time, level, msg, ...rest } = line;
    const clock = String(time).slice(11, 19);
    const color = colors[String(level)] ?? '';
    if (msg === 'request') {
      const { method, path, status, ms, requestId } = rest as Record<string, unknown>;
      const statusColor = Number(status) >= 500 ? colors.error : Number(status) >= 400 ? colors.warn : '\x1b[32m';
      stream.write(`${clock} ${method} ${path} ${statusColor}${status}\x1b[0m ${ms}ms \x1b[90m${requestId}\x1b[0m\n`);
      return;
    }
    const extra = Object.keys(rest).length ? ' ' + JSON.stringify(rest) : '';
    stream.write(`${clock} ${color}${level}\x1b[0m ${msg}${extra}\n`);
  };
}
