/**
 * Outbound webhooks' two ports: the delivery queue (SQS on AWS, fauxqs
 * locally), which only says which delivery to attempt and when (the table
 * holds the event), and the HTTP poster, which judges the address it
 * connects to (docs/webhooks.md, Safe targets).
 */
export interface DeliveryMessage {
  webhookId: string;
  eventId: string;
  /** Attempts made before this one: a message for an attempt already made is dropped. */
  attempt: number;
  /** Engine milliseconds until the attempt is due; the adapter turns it into a wall-clock delay of at most 900 s. */
  delayMs: number;
}

export interface WebhookQueue {
  enqueue(messages: DeliveryMessage[]): Promise<void>;
}

/** What one POST came to: the status when the receiver answered, or why there was no answer. */
export type PostOutcome = { status: number } | { status?: undefined; error: string };

export interface WebhookPoster {
  /** One POST, no redirect followed, given up after `timeoutMs`; never throws. */
  post(url: string, headers: Record<string, string>, body: string, timeoutMs: number): Promise<PostOutcome>;
}
