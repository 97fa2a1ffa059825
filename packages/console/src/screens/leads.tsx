/**
 * Leads, per campaign: the list, a CSV import with a progress bar (the file
 * goes to the signed upload link the engine gives, then the import's progress
 * is followed), and a lead's own view with its next send in words (one request
 * per lead viewed), suppress and erase.
 */
import { useEffect, useState } from 'preact/hooks';
import type { Schemas } from '@outbound/client/index';
import { api, errorText, when } from '../api.ts';
import { HOLD_RULES } from '../words.ts';
import { Alert, Notice } from '../messages.tsx';

type Lead = Schemas['Lead'];
type Import = Schemas['ImportResult'];
type NextSend = {
  step: number | null;
  earliestAt: string | null;
  timezone: string | null;
  blockedBy: { rule: string; until: string | null; detail: string }[];
};

/** Leads listed in this tab, so a lead's own view shows its fields without another request. */
const seen = new Map<string, Lead>();

/** How often a running import's progress is read (the API's limit is 100 requests a minute for everything else too). */
const POLL_MS = 1_000;

export function Leads({ path }: { path: string[] }) {
  const [id] = path;
  return id ? <LeadView id={id} /> : <LeadList />;
}

function LeadList() {
  const [campaigns, setCampaigns] = useState<{ id: string; name: string }[]>([]);
  const [campaignId, setCampaignId] = useState(() => sessionStorage.getItem('outbound.leads.campaign') ?? '');
  const [leads, setLeads] = useState<Lead[]>([]);
  const [cursor, setCursor] = useState<string | null>(null);
  const [error, setError] = useState('');

  useEffect(() => {
    void api.GET('/v1/campaigns').then(({ data }) => {
      const list = ((data as { id: string; name: string; status: string }[] | undefined) ?? []).filter((c) => c.status !== 'ARCHIVED');
      setCampaigns(list);
      if (!campaignId && list[0]) setCampaignId(list[0].id);
    });
  }, []);
  const load = async () => {
    if (!campaignId) return;
    sessionStorage.setItem('outbound.leads.campaign', campaignId);
    const { data, error: refused } = await api.GET('/v1/leads', { params: { query: { campaignId, limit: 200 } } });
    if (data) {
      for (const l of data.leads) seen.set(l.id, l);
      setLeads(data.leads);
      setCursor((data as { nextCursor?: string | null }).nextCursor ?? null);
    } else setError(errorText(refused));
  };
  const more = async () => {
    if (!cursor) return;
    const { data, error: refused } = await api.GET('/v1/leads', { params: { query: { campaignId, limit: 200, cursor } } });
    if (data) {
      for (const l of data.leads) seen.set(l.id, l);
      setLeads((all) => [...all, ...data.leads]);
      setCursor((data as { nextCursor?: string | null }).nextCursor ?? null);
    } else setError(errorText(refused));
  };
  useEffect(() => void load(), [campaignId]);

  return (
    <>
      <h1>Leads</h1>
      <div class="card">
        <label for="leads-campaign">Campaign</label>
        <select id="leads-campaign" value={campaignId} onChange={(e) => setCampaignId(e.currentTarget.value)}>
          {campaigns.length === 0 && <option value="">No campaigns yet</option>}
          {campaigns.map((c) => (
            <option key={c.id} value={c.id}>
              {c.name}
            </option>
          ))}
        </select>
      </div>
      {campaignId && <ImportCsv campaignId={campaignId} onDone={() => void load()} />}
      <Alert text={error} />
      <section class="card scroll" aria-label="Leads">
        {leads.length === 0 ? (
          <p class="muted">No leads in this campaign yet.</p>
        ) : (
          <table>
            <thead>
              <tr>
                <th scope="col">Email</th>
                <th scope="col">Name</th>
                <th scope="col">Company</th>
                <th scope="col">Status</th>
              </tr>
            </thead>
            <tbody>
              {leads.map((l) => (
                <tr key={l.id}>
                  <td>
                    <a href={`#/leads/${encodeURIComponent(l.id)}`}>{l.email}</a>
                  </td>
                  <td>{[l.firstName, l.lastName].filter(Boolean).join(' ')}</td>
                  <td>{l.company}</td>
                  <td>{l.status.toLowerCase()}</td>
                </tr>
              ))}
            </tbody>
          </table>
        )}
        {cursor && (
          <button type="button" class="quiet" onClick={() => void more()}>
            Show more leads
          </button>
        )}
      </section>
    </>
  );
}

/** A PUT to the signed link, with the browser's upload progress (fetch cannot report it). */
function upload(
  ticket: { url: string; method: string; headers: Record<string, string> },
  file: File,
  onProgress: (fraction: number) => void,
): Promise<void> {
  return new Promise((resolve, reject) => {
    const xhr = new XMLHttpRequest();
    xhr.open(ticket.method, ticket.url);
    for (const [k, v] of Object.entries(ticket.headers)) xhr.setRequestHeader(k, v);
    xhr.upload.onprogress = (e) => e.lengthComputable && onProgress(e.loaded / e.total);
    xhr.onload = () =>
      xhr.status < 300 ? resolve() : reject(new Error(errorText(safeJson(xhr.responseText), `The upload was refused (${xhr.status}).`)));
    xhr.onerror = () => reject(new Error('The upload could not reach the installation. Try again.'));
    xhr.send(file);
  });
}

const safeJson = (text: string): unknown => {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
};

function ImportCsv({ campaignId, onDone }: { campaignId: string; onDone: () => void }) {
  const [file, setFile] = useState<File | undefined>();
  const [phase, setPhase] = useState('');
  const [value, setValue] = useState(0);
  const [max, setMax] = useState(1);
  const [result, setResult] = useState<Import | undefined>();
  const [error, setError] = useState('');

  const start = async (e: Event) => {
    e.preventDefault();
    if (!file) return;
    setError('');
    setResult(undefined);
    // The rows to expect, for the bar: the file's lines but the header (quoted line breaks make it an estimate).
    const rows = Math.max(1, (await file.text()).split(/\r?\n/).filter((l) => l.trim()).length - 1);
    setPhase('Uploading the file');
    setMax(rows);
    setValue(0);
    const { data: ticket, error: refused } = await api.POST('/v1/leads/imports', { body: { campaignId, bytes: file.size } });
    if (!ticket) {
      setPhase('');
      return setError(errorText(refused));
    }
    try {
      await upload((ticket as Schemas['UploadTicket']).upload, file, (f) => setValue(Math.round(f * rows * 0.1)));
    } catch (err) {
      setPhase('');
      return setError((err as Error).message);
    }
    setPhase('Storing the rows');
    for (;;) {
      const {
        data,
        error: later,
        response,
      } = await api.GET('/v1/leads/imports/{importId}', { params: { path: { importId: ticket.importId } } });
      // The per-minute limit counts these reads too: a 429 says how long to wait.
      if (response.status === 429) {
        await new Promise((r) =>
          setTimeout(r, Math.max(POLL_MS, Number((later as { retryAfterMs?: number } | undefined)?.retryAfterMs) || 0)),
        );
        continue;
      }
      const now = data as Import | undefined;
      if (now) {
        setValue(Math.min(rows, Math.max(now.rowsRead ?? now.received, Math.round(rows * 0.1))));
        if (now.status !== 'RUNNING') {
          setValue(rows);
          setResult(now);
          setPhase('');
          if (now.status === 'FAILED') setError(now.error ?? 'The import failed.');
          onDone();
          return;
        }
      }
      await new Promise((r) => setTimeout(r, POLL_MS));
    }
  };

  return (
    <form class="card" onSubmit={start}>
      <h2>Import a CSV file</h2>
      <label for="csv-file">CSV file</label>
      <input id="csv-file" type="file" accept=".csv,text/csv" onChange={(e) => setFile(e.currentTarget.files?.[0])} />
      <button type="submit" disabled={!file || Boolean(phase)}>
        Import
      </button>
      {(phase || result) && (
        <div>
          <label for="import-progress">{phase || 'Import finished'}</label>
          <progress id="import-progress" max={max} value={value} />
        </div>
      )}
      {result && (
        <p role="status">
          {result.imported} imported, {result.duplicates} duplicates, {result.suppressed} suppressed, {result.invalid} not valid.
        </p>
      )}
      {result && result.errors.length > 0 && (
        <ul>
          {result.errors.slice(0, 20).map((e) => (
            <li key={e.row}>
              Row {e.row}: {e.error}
            </li>
          ))}
        </ul>
      )}
      <Alert text={error} />
    </form>
  );
}

/** next-send in a sentence: when, and what holds it. */
function nextSendWords(n: NextSend): string {
  if (n.step === null) return 'The sequence has ended: nothing more will be sent.';
  const which = n.step === 0 ? 'The first email' : `Follow-up ${n.step}`;
  if (!n.earliestAt) return `${which} will not go as things stand: a change must lift what holds it.`;
  return `${which} may go from ${when(n.earliestAt)}${n.timezone ? ` (sending window in ${n.timezone})` : ''}.`;
}

function LeadView({ id }: { id: string }) {
  const lead = seen.get(id);
  const [next, setNext] = useState<NextSend | undefined>();
  const [error, setError] = useState('');
  const [notice, setNotice] = useState('');
  const [confirmErase, setConfirmErase] = useState(false);

  useEffect(() => {
    void api
      .GET('/v1/leads/{id}/next-send', { params: { path: { id } } })
      .then(({ data, error: refused }) => (data ? setNext(data as NextSend) : setError(errorText(refused))));
  }, [id]);

  const suppress = async () => {
    const { data, error: refused } = await api.POST('/v1/leads/{id}/suppress', { params: { path: { id } } });
    if (data) {
      seen.set(id, data as Lead);
      setNotice('Suppressed: this address gets no more email from any campaign.');
    } else setError(errorText(refused));
  };
  const erase = async () => {
    if (!lead) return;
    const { data, error: refused } = await api.DELETE('/v1/leads/erase', { body: { email: lead.email } });
    setConfirmErase(false);
    if (data) setNotice('Erased from every campaign; the address stays suppressed.');
    else setError(errorText(refused));
  };

  return (
    <>
      <p>
        <a href="#/leads">Back to the list</a>
      </p>
      <h1>{lead?.email ?? 'Lead'}</h1>
      {lead && (
        <dl class="card">
          <dt>Name</dt>
          <dd>{[lead.firstName, lead.lastName].filter(Boolean).join(' ') || '—'}</dd>
          <dt>Company</dt>
          <dd>{lead.company ?? '—'}</dd>
          <dt>Status</dt>
          <dd>{lead.status.toLowerCase()}</dd>
        </dl>
      )}
      <section class="card" aria-label="Next send">
        <h2>Next send</h2>
        {next ? (
          <>
            <p>{nextSendWords(next)}</p>
            {next.blockedBy.length > 0 && (
              <ul>
                {next.blockedBy.map((b) => (
                  <li key={b.rule}>
                    {HOLD_RULES[b.rule] ?? b.rule}: {b.detail}
                    {b.until ? ` Until ${when(b.until)}.` : ''}
                  </li>
                ))}
              </ul>
            )}
          </>
        ) : (
          !error && <p class="muted">Reading…</p>
        )}
      </section>
      <div class="card">
        <button type="button" class="quiet" onClick={() => void suppress()}>
          Suppress
        </button>
        {lead && !confirmErase && (
          <button type="button" class="danger" onClick={() => setConfirmErase(true)}>
            Erase
          </button>
        )}
        {lead && confirmErase && (
          <p>
            Erase {lead.email} from every campaign? This cannot be undone.
            <button type="button" class="danger" onClick={() => void erase()}>
              Erase for good
            </button>
            <button type="button" class="quiet" onClick={() => setConfirmErase(false)}>
              Keep
            </button>
          </p>
        )}
      </div>
      <Notice text={notice} />
      <Alert text={error} />
    </>
  );
}
