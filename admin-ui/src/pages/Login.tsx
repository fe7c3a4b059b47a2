import { useState, type FormEvent } from 'react';
import { ApiError, checkLogin, type Credentials } from '../lib/api';

/** The admin credentials (SLUICE_ADMIN_USER / SLUICE_ADMIN_PASSWORD); tenant keys never work here. */
export function Login({ onLogin, reason }: { onLogin: (c: Credentials) => void; reason?: string | null }) {
  const [user, setUser] = useState('admin');
  const [password, setPassword] = useState('');
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);

  const submit = async (e: FormEvent) => {
    e.preventDefault();
    if (!user.trim() || !password) {
      setError('Enter the admin user name and password.');
      return;
    }
    setBusy(true);
    setError(null);
    const c = { user: user.trim(), password };
    try {
      await checkLogin(c);
      onLogin(c);
    } catch (err) {
      const e2 = err instanceof ApiError ? err : new ApiError(0, 'client', String(err));
      let msg = e2.status === 401 ? 'Wrong user name or password.' : e2.message;
      if (e2.status === 401 && /^sk-/.test(password)) {
        msg += ' That looks like a tenant API key: tenant keys never open the admin console; use the admin credentials.';
      }
      setError(msg);
    } finally {
      setBusy(false);
    }
  };

  return (
    <main className="login" id="main">
      <form onSubmit={submit} aria-describedby="login-help" noValidate>
        <h1>Sluice admin</h1>
        <p id="login-help" className="muted">
          Sign in with the admin credentials (<code>SLUICE_ADMIN_USER</code> and <code>SLUICE_ADMIN_PASSWORD</code>; without a
          password set, the gateway logs a generated one at start). They are kept for this tab only.
        </p>
        {reason && !error && (
          <p className="notice warn" role="alert">
            {reason}
          </p>
        )}
        <label htmlFor="login-user">User name</label>
        <input id="login-user" name="username" autoComplete="username" value={user} onChange={(e) => setUser(e.target.value)} />
        <label htmlFor="login-password">Password</label>
        <input
          id="login-password"
          name="password"
          type="password"
          autoComplete="current-password"
          value={password}
          onChange={(e) => setPassword(e.target.value)}
          aria-invalid={error ? true : undefined}
          aria-describedby={error ? 'login-error' : undefined}
          autoFocus
        />
        {error && (
          <p id="login-error" className="notice error" role="alert">
            {error}
          </p>
        )}
        <button type="submit" className="primary" disabled={busy}>
          {busy ? 'Signing in…' : 'Sign in'}
        </button>
      </form>
    </main>
  );
}
