import { monotonicFactory } from 'ulid';

const ulid = monotonicFactory();

/** Opaque identifiers: ULIDs, which sort by creation time, so lists come out oldest first. */
export const newId = (): string => ulid();
