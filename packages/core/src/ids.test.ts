import { describe, expect, it } from 'vitest';
import { messageIdAt, newId } from './ids.ts';

describe('ids', () => {
  it('a Message-ID is 128 random bits at the domain: nothing in it follows from the id sent just before', () => {
    const ids = Array.from({ length: 1000 }, () => messageIdAt('sender.com'));
    for (const id of ids) expect(id).toMatch(/^[0-9a-f]{32}@sender\.com$/);
    expect(new Set(ids).size).toBe(ids.length);
    // Two ids made back to back share no more of their start than chance gives (a ULID shares its 10 time characters and more).
    const shared = (a: string, b: string) => [...a].findIndex((ch, i) => ch !== b[i]);
    const prefixes = ids.slice(1).map((id, i) => shared(id, ids[i]!));
    expect(Math.max(...prefixes)).toBeLessThan(8);
    expect(newId()).toMatch(/^[0-9A-Z]{26}$/);
  });
});
