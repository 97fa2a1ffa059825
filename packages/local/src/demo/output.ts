/** How the demo talks: plain lines on stdout, and failures it can explain in one sentence. */

export const say = (line = '') => console.log(line);

/** The wall-clock time of day, which is what a reader compares arrivals by. */
export const clock = (t = Date.now()) => new Date(t).toTimeString().slice(0, 8);

export const indent = (text: string, prefix = '      ') =>
  text
    .split('\n')
    .map((l) => prefix + l)
    .join('\n');

/** A failure the demo explains in one sentence (no stack trace). */
export class DemoError extends Error {}
