/**
 * The operator console: sign-in, then one screen per part of the engine,
 * chosen by the address's hash (#/inbox), so links, Back and reloads work
 * without any route on the server but `/`. Everything shown from the API is
 * rendered as text by Preact (never as HTML), so a hostile reply cannot run.
 */
import { render } from 'preact';
import { useEffect, useState } from 'preact/hooks';
import { api, errorText, session } from './api.ts';
import { Campaigns } from './screens/campaigns.tsx';
import { Domains } from './screens/domains.tsx';
import { Inbox } from './screens/inbox.tsx';
import { Leads } from './screens/leads.tsx';
import { Mailboxes } from './screens/mailboxes.tsx';
import { Webhooks } from './screens/webhooks.tsx';
import { Alert } from './messages.tsx';

const SCREENS = [
  ['campaigns', 'Campaigns', Campaigns],
  ['inbox', 'Inbox', Inbox],
  ['leads', 'Leads', Leads],
  ['domains', 'Domains', Domains],
  ['mailboxes', 'Mailboxes', Mailboxes],
  ['webhooks', 'Webhooks', Webhooks],
] as const;

/** The hash's path segments: `#/leads/ID` is ['leads', 'ID']. */
const route = () => location.hash.replace(/^#\/?/, '').split('/').filter(Boolean).map(decodeURIComponent);

function useRoute() {
  const [path, setPath] = useState(route);
  useEffect(() => {
    const on = () => setPath(route());
    addEventListener('hashchange', on);
    return () => removeEventListener('hashchange', on);
  }, []);
  return path;
}

function SignIn({ onSignedIn }: { onSignedIn: () => void }) {
  const [email, setEmail] = useState('');
  const [password, setPassword] = useState('');
  const [error, setError] = useState('');
  const [busy, setBusy] = useState(false);
  const submit = async (e: Event) => {
    e.preventDefault();
    setBusy(true);
    setError('');
    const { data, error: refused } = await api
      .POST('/v1/auth/login', { body: { email, password } })
      .catch(() => ({ data: undefined, error: undefined }));
    setBusy(false);
    if (data?.token) {
      session.set(data.token);
      onSignedIn();
    } else setError(errorText(refused, 'The engine could not be reached. Try again.'));
  };
  return (
    <main class="signin">
      <form class="card" onSubmit={submit}>
        <h1>Sign in to Outbound</h1>
        <label for="signin-email">Email</label>
        <input
          id="signin-email"
          type="email"
          autocomplete="username"
          required
          value={email}
          onInput={(e) => setEmail(e.currentTarget.value)}
        />
        <label for="signin-password">Password</label>
        <input
          id="signin-password"
          type="password"
          autocomplete="current-password"
          required
          value={password}
          onInput={(e) => setPassword(e.currentTarget.value)}
        />
        <Alert text={error} />
        <button type="submit" disabled={busy}>
          Sign in
        </button>
      </form>
    </main>
  );
}

function App() {
  const [signedIn, setSignedIn] = useState(() => Boolean(session.token()));
  const path = useRoute();
  // A token the engine no longer takes (expired, a password reset) signs the tab out.
  useEffect(() => {
    const mw = {
      onResponse({ response }: { response: Response }) {
        if (response.status === 401 && session.token()) {
          session.clear();
          setSignedIn(false);
        }
      },
    };
    api.use(mw);
    return () => api.eject(mw);
  }, []);
  if (!signedIn) return <SignIn onSignedIn={() => setSignedIn(true)} />;
  const [name = 'inbox', ...rest] = path;
  const screen = SCREENS.find(([key]) => key === name) ?? SCREENS[1];
  const Screen = screen[2];
  const signOut = () => {
    session.clear();
    setSignedIn(false);
  };
  return (
    <>
      <header>
        <span class="brand">Outbound</span>
        <nav aria-label="Main">
          <ul>
            {SCREENS.map(([key, label]) => (
              <li key={key}>
                <a href={`#/${key}`} aria-current={key === screen[0] ? 'page' : undefined}>
                  {label}
                </a>
              </li>
            ))}
          </ul>
        </nav>
        <button type="button" class="quiet out" onClick={signOut}>
          Sign out
        </button>
      </header>
      <main>
        <Screen path={rest} />
      </main>
    </>
  );
}

render(<App />, document.getElementById('app')!);
