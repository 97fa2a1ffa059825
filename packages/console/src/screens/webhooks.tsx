/**
 * Webhooks: create one (its signing secret is shown here once, never again),
 * the list, and each one's deliveries.
 */
import { useEffect, useState } from 'preact/hooks';
import { api, errorText, when } from '../api.ts';
import { Alert } from '../messages.tsx';

type Hook = { id: string; url: string; events: string[]; createdAt: string };
type Delivery = {
  eventId: string;
  type: string;
  attempts: number;
  lastStatus: number | null;
  lastAttemptAt: string | null;
  delivered: boolean;
};

function Deliveries({ id }: { id: string }) {
  const [list, setList] = useState<Delivery[] | undefined>();
  useEffect(() => {
    void api
      .GET('/v1/webhooks/{id}/deliveries', { params: { path: { id } } })
      .then(({ data }) => setList((data as { deliveries?: Delivery[] } | undefined)?.deliveries ?? []));
  }, [id]);
  if (!list) return <p class="muted">Reading…</p>;
  if (list.length === 0) return <p class="muted">Nothing delivered yet.</p>;
  return (
    <table>
      <thead>
        <tr>
          <th scope="col">Event</th>
          <th scope="col">Delivered</th>
          <th scope="col">Attempts</th>
          <th scope="col">Last answer</th>
        </tr>
      </thead>
      <tbody>
        {list.map((d) => (
          <tr key={d.eventId}>
            <td>{d.type}</td>
            <td>{d.delivered ? 'Yes' : 'Not yet'}</td>
            <td>{d.attempts}</td>
            <td>
              {d.lastStatus ?? '—'} {when(d.lastAttemptAt)}
            </td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}

export function Webhooks() {
  const [hooks, setHooks] = useState<Hook[]>([]);
  const [url, setUrl] = useState('');
  const [events, setEvents] = useState('*');
  const [secret, setSecret] = useState('');
  const [open, setOpen] = useState('');
  const [error, setError] = useState('');
  const load = async () => {
    const { data, error: refused } = await api.GET('/v1/webhooks');
    if (data) setHooks((data as { webhooks: Hook[] }).webhooks);
    else setError(errorText(refused));
  };
  useEffect(() => void load(), []);
  const create = async (e: Event) => {
    e.preventDefault();
    setError('');
    setSecret('');
    const list = events.split(/[\s,]+/).filter(Boolean);
    const { data, error: refused } = await api.POST('/v1/webhooks', { body: { url, events: list } as never });
    if (data) {
      setSecret((data as { secret: string }).secret);
      setUrl('');
      void load();
    } else setError(errorText(refused));
  };
  const remove = async (id: string) => {
    const { error: refused } = await api.DELETE('/v1/webhooks/{id}', { params: { path: { id } } });
    if (refused) setError(errorText(refused));
    else void load();
  };
  return (
    <>
      <h1>Webhooks</h1>
      <form class="card" onSubmit={create}>
        <h2>Add a webhook</h2>
        <label for="w-url">Receiver URL</label>
        <input id="w-url" type="url" required value={url} onInput={(e) => setUrl(e.currentTarget.value)} />
        <label for="w-events">Events (comma-separated, or * for all)</label>
        <input id="w-events" value={events} onInput={(e) => setEvents(e.currentTarget.value)} />
        <button type="submit">Add webhook</button>
      </form>
      {secret && (
        <div class="card" role="status">
          <p>The signing secret, shown this once: keep it where your receiver checks signatures.</p>
          <p class="secret">{secret}</p>
        </div>
      )}
      <Alert text={error} />
      <ul class="rows card" aria-label="Webhooks">
        {hooks.length === 0 && <li class="muted">No webhooks yet.</li>}
        {hooks.map((h) => (
          <li key={h.id}>
            <div class="row-head">
              <span>{h.url}</span>
              <span class="muted">{h.events.join(', ')}</span>
            </div>
            <button type="button" class="quiet" aria-expanded={open === h.id} onClick={() => setOpen(open === h.id ? '' : h.id)}>
              Deliveries to {h.url}
            </button>
            <button type="button" class="danger" onClick={() => void remove(h.id)}>
              Remove {h.url}
            </button>
            {open === h.id && (
              <div class="scroll">
                <Deliveries id={h.id} />
              </div>
            )}
          </li>
        ))}
      </ul>
    </>
  );
}
