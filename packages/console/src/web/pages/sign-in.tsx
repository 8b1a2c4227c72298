import { useState } from 'preact/hooks';
import { requestToken } from '../logic/api';
import { sessionOf, type Session } from '../logic/session';
import { messageOf } from '../ui/messages';

export function SignIn({ notice, onSignedIn }: { notice: string; onSignedIn: (session: Session) => void }) {
  const [clientId, setClientId] = useState('');
  const [secret, setSecret] = useState('');
  const [error, setError] = useState('');
  const [busy, setBusy] = useState(false);

  const submit = async (event: Event) => {
    event.preventDefault();
    setBusy(true);
    setError('');
    try {
      const token = await requestToken(clientId.trim(), secret);
      onSignedIn(sessionOf(clientId.trim(), token, Date.now()));
    } catch (e) {
      setError(messageOf(e));
    } finally {
      setBusy(false);
    }
  };

  return (
    <main class="sign-in" aria-labelledby="sign-in-title">
      <h1 id="sign-in-title">Sign in to the Custos console</h1>
      <p>Use a client id and secret, such as the administrator client Custos was started with.</p>
      {notice !== '' && <p class="notice" role="status">{notice}</p>}
      <form onSubmit={(e) => void submit(e)}>
        <label for="client-id">Client id</label>
        <input id="client-id" name="client-id" autoComplete="username" required value={clientId} onInput={(e) => setClientId(e.currentTarget.value)} />
        <label for="client-secret">Client secret</label>
        <input id="client-secret" name="client-secret" type="password" autoComplete="current-password" required value={secret} onInput={(e) => setSecret(e.currentTarget.value)} />
        <button type="submit" disabled={busy}>
          {busy ? 'Signing in…' : 'Sign in'}
        </button>
        {error !== '' && (
          <p class="error" role="alert">
            {error}
          </p>
        )}
      </form>
      <p class="hint">The token stays in this tab's memory only; reloading the page signs you out.</p>
    </main>
  );
}
