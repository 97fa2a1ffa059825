/**
 * The inbox: every reply newest first with its sender, subject, snippet and
 * status, filtered by status, unread, campaign and mailbox; a reply opens its
 * conversation, where a person sets the status, answers, marks it read or
 * snoozes it. Every text from a reply is rendered as text.
 */
import { useEffect, useState } from 'preact/hooks';
import type { Schemas } from '@outbound/client/index';
import { api, errorText, idempotencyKey, when } from '../api.ts';
import { REPLY_STATUSES, type ReplyStatus } from '../words.ts';
import { Alert, Notice } from '../messages.tsx';

type Reply = Schemas['Reply'];
type Message = {
  direction: 'in' | 'out';
  subject?: string;
  text?: string;
  at?: string;
  fromEmail?: string;
  step?: number | null;
  replyId?: string;
  status?: string;
};

/** How often the open inbox looks for new replies. */
const REFRESH_MS = 5_000;
/** Replies a page. */
const PAGE = 100;

export function Inbox() {
  const [replies, setReplies] = useState<Reply[]>([]);
  const [error, setError] = useState('');
  const [status, setStatus] = useState('');
  const [unread, setUnread] = useState(false);
  const [campaignId, setCampaignId] = useState('');
  const [mailboxId, setMailboxId] = useState('');
  const [campaigns, setCampaigns] = useState<{ id: string; name: string }[]>([]);
  const [mailboxes, setMailboxes] = useState<{ id: string; email: string }[]>([]);
  const [open, setOpen] = useState<Reply | undefined>();

  useEffect(() => {
    void api.GET('/v1/campaigns').then(({ data }) => setCampaigns((data as { id: string; name: string }[] | undefined) ?? []));
    void api.GET('/v1/mailboxes').then(({ data }) => setMailboxes((data as { id: string; email: string }[] | undefined) ?? []));
  }, []);

  // The newest page is read again every few seconds; older pages are added on request and kept below it.
  const [older, setOlder] = useState<Reply[]>([]);
  // undefined until the first page came; null once there is nothing older.
  const [cursor, setCursor] = useState<string | null | undefined>(undefined);
  const query = () => ({
    ...(status ? { status } : {}),
    ...(unread ? { unread: 'true' as const } : {}),
    ...(campaignId ? { campaignId } : {}),
    ...(mailboxId ? { mailboxId } : {}),
    limit: PAGE,
  });
  const load = async () => {
    const { data, error: refused } = await api.GET('/v1/replies', { params: { query: query() } });
    if (data) {
      setReplies(data.replies as Reply[]);
      setCursor((c) => (c === undefined ? (data.nextCursor ?? null) : c));
      setError('');
    } else setError(errorText(refused));
  };
  const more = async () => {
    if (!cursor) return;
    const { data, error: refused } = await api.GET('/v1/replies', { params: { query: { ...query(), cursor } } });
    if (data) {
      setOlder((o) => [...o, ...(data.replies as Reply[])]);
      setCursor(data.nextCursor ?? null);
    } else setError(errorText(refused));
  };
  useEffect(() => {
    setOlder([]);
    setCursor(undefined);
    void load();
    const timer = setInterval(() => void load(), REFRESH_MS);
    return () => clearInterval(timer);
  }, [status, unread, campaignId, mailboxId]);

  const changed = (reply: Reply) => {
    setReplies((all) => all.map((r) => (r.id === reply.id ? reply : r)));
    setOpen(reply);
  };

  if (open) return <Conversation reply={open} onBack={() => (setOpen(undefined), void load())} onChange={changed} />;
  return (
    <>
      <h1>Inbox</h1>
      <div class="card filters" role="search" aria-label="Filter replies">
        <div>
          <label for="filter-status">Filter by status</label>
          <select id="filter-status" value={status} onChange={(e) => setStatus(e.currentTarget.value)}>
            <option value="">Any status</option>
            {Object.entries(REPLY_STATUSES).map(([code, words]) => (
              <option key={code} value={code}>
                {words}
              </option>
            ))}
          </select>
        </div>
        <div>
          <label for="filter-campaign">Campaign</label>
          <select id="filter-campaign" value={campaignId} onChange={(e) => setCampaignId(e.currentTarget.value)}>
            <option value="">Every campaign</option>
            {campaigns.map((c) => (
              <option key={c.id} value={c.id}>
                {c.name}
              </option>
            ))}
          </select>
        </div>
        <div>
          <label for="filter-mailbox">Mailbox</label>
          <select id="filter-mailbox" value={mailboxId} onChange={(e) => setMailboxId(e.currentTarget.value)}>
            <option value="">Every mailbox</option>
            {mailboxes.map((m) => (
              <option key={m.id} value={m.id}>
                {m.email}
              </option>
            ))}
          </select>
        </div>
        <label class="inline">
          <input type="checkbox" checked={unread} onChange={(e) => setUnread(e.currentTarget.checked)} /> Unread only
        </label>
      </div>
      <Alert text={error} />
      <section class="card" aria-label="Replies">
        {replies.length === 0 ? (
          <p class="muted">No replies yet.</p>
        ) : (
          <ul class="rows">
            {[...replies, ...older.filter((o) => !replies.some((r) => r.id === o.id))].map((r) => (
              <li key={r.id} class={r.read ? '' : 'unread'}>
                <button type="button" class="row-link" onClick={() => setOpen(r)}>
                  {!r.read && <span class="sr-only">Unread: </span>}
                  <span class="row-head">
                    <span class="from">{r.fromEmail}</span>
                    <span>
                      <span class="badge status">{REPLY_STATUSES[r.status]}</span> <span class="muted">{when(r.receivedAt)}</span>
                    </span>
                  </span>
                  <span class="subject">{r.subject}</span>
                  <br />
                  <span class="muted snippet">{r.snippet}</span>
                </button>
              </li>
            ))}
          </ul>
        )}
        {cursor && (
          <button type="button" class="quiet" onClick={() => void more()}>
            Show older replies
          </button>
        )}
      </section>
    </>
  );
}

function Conversation({ reply, onBack, onChange }: { reply: Reply; onBack: () => void; onChange: (r: Reply) => void }) {
  const [messages, setMessages] = useState<Message[]>([]);
  const [error, setError] = useState('');
  const [notice, setNotice] = useState('');
  const [answer, setAnswer] = useState('');
  const [sending, setSending] = useState(false);
  const [snoozeUntil, setSnoozeUntil] = useState('');

  const load = async () => {
    const { data, error: refused } = await api.GET('/v1/leads/{id}/conversation', { params: { path: { id: reply.leadId } } });
    if (data) setMessages((data as { messages: Message[] }).messages);
    else setError(errorText(refused));
  };
  useEffect(() => void load(), [reply.leadId]);

  const patch = async (
    body: { status?: Exclude<ReplyStatus, 'NEEDS_REVIEW'>; read?: boolean; snoozedUntil?: string | null },
    done: string,
  ) => {
    setError('');
    const { data, error: refused } = await api.PATCH('/v1/replies/{id}', { params: { path: { id: reply.id } }, body });
    if (data) {
      onChange(data as Reply);
      setNotice(done);
    } else setError(errorText(refused));
  };

  const send = async (e: Event) => {
    e.preventDefault();
    setSending(true);
    setError('');
    setNotice('');
    const { data, error: refused } = await api.POST('/v1/leads/{id}/messages', {
      params: { path: { id: reply.leadId }, header: { 'Idempotency-Key': idempotencyKey() } },
      body: { text: answer },
    });
    setSending(false);
    if (data) {
      setAnswer('');
      setNotice('Your answer is on its way: it leaves from the lead’s mailbox within a minute.');
      void load();
    } else setError(errorText(refused));
  };

  return (
    <>
      <button type="button" class="quiet" onClick={onBack}>
        Back to the inbox
      </button>
      <h1>{reply.subject}</h1>
      <p class="muted">
        From {reply.fromEmail}, {when(reply.receivedAt)}
      </p>
      <div class="card">
        <label for="reply-status">Status</label>
        <select
          id="reply-status"
          value={reply.status}
          onChange={(e) => void patch({ status: e.currentTarget.value as Exclude<ReplyStatus, 'NEEDS_REVIEW'> }, 'Status saved.')}
        >
          {Object.entries(REPLY_STATUSES).map(([code, words]) => (
            <option key={code} value={code} disabled={code === 'NEEDS_REVIEW'}>
              {words}
            </option>
          ))}
        </select>
        <button
          type="button"
          class="quiet"
          onClick={() => void patch({ read: !reply.read }, reply.read ? 'Marked unread.' : 'Marked read.')}
        >
          {reply.read ? 'Mark unread' : 'Mark read'}
        </button>
        <label for="snooze-until">Snooze until</label>
        <input id="snooze-until" type="datetime-local" value={snoozeUntil} onInput={(e) => setSnoozeUntil(e.currentTarget.value)} />
        <button
          type="button"
          class="quiet"
          disabled={!snoozeUntil}
          onClick={() => void patch({ snoozedUntil: new Date(snoozeUntil).toISOString() }, 'Snoozed.')}
        >
          Snooze
        </button>
        {reply.snoozedUntil && <p class="muted">Snoozed until {when(reply.snoozedUntil)}.</p>}
      </div>
      <section class="card" aria-label="Conversation">
        <h2>Conversation</h2>
        {messages.map((m, i) => (
          <article
            key={i}
            class={`message ${m.direction}`}
            aria-label={m.direction === 'in' ? `Reply from ${m.fromEmail ?? 'the lead'}` : 'Sent email'}
          >
            <p class="muted">
              {m.direction === 'in' ? `${m.fromEmail ?? ''} wrote` : m.step === null ? 'You answered' : `Step ${(m.step ?? 0) + 1} sent`},{' '}
              {when(m.at)}: {m.subject}
            </p>
            <div>{m.text}</div>
          </article>
        ))}
      </section>
      <form class="card" onSubmit={send}>
        <label for="answer">Answer</label>
        <textarea id="answer" required value={answer} onInput={(e) => setAnswer(e.currentTarget.value)} />
        <button type="submit" disabled={sending || !answer.trim()}>
          Send
        </button>
      </form>
      <Notice text={notice} />
      <Alert text={error} />
    </>
  );
}
