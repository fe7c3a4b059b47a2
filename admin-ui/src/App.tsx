import { useEffect, useMemo, useRef, useState } from 'react';
import { Api, type Credentials } from './lib/api';
import { clearCredentials, loadCredentials, saveCredentials } from './lib/auth';
import { Nav } from './components/Nav';
import { Loading } from './components/States';
import { probeFeatures, pagesFor, type Features } from './lib/features';
import { useRoute, BASE } from './lib/router';
import { ApiContext } from './lib/useApi';
import { Login } from './pages/Login';
import { OverviewPage } from './pages/Overview';
import { TiersPage } from './pages/Tiers';
import { TenantsPage } from './pages/Tenants';
import { OrganisationsPage } from './pages/Organisations';
import { FlagsPage } from './pages/Flags';
import { LabPage } from './pages/Lab';

export function App() {
  const [creds, setCreds] = useState<Credentials | null>(() => loadCredentials());
  const [reason, setReason] = useState<string | null>(null);
  const route = useRoute();
  const mainRef = useRef<HTMLElement>(null);

  const api = useMemo(
    () =>
      creds
        ? new Api(creds, (e) => {
            clearCredentials();
            setReason(`The gateway refused the saved credentials (${e.message}) Sign in again.`);
            setCreds(null);
          })
        : null,
    [creds],
  );

  // Which optional parts (the lab) this gateway has: asked once per sign-in.
  const [features, setFeatures] = useState<Features | null>(null);
  useEffect(() => {
    if (!api) return;
    const ctl = new AbortController();
    setFeatures(null);
    probeFeatures(api, ctl.signal).then(setFeatures, () => {});
    return () => ctl.abort();
  }, [api]);

  // After a page change, move focus to the page's heading area so keyboard and screen reader users start there.
  useEffect(() => {
    mainRef.current?.focus();
  }, [route.path]);

  if (!creds || !api) {
    return (
      <Login
        reason={reason}
        onLogin={(c) => {
          saveCredentials(c);
          setReason(null);
          setCreds(c);
        }}
      />
    );
  }

  const logout = () => {
    clearCredentials();
    setReason(null);
    setCreds(null);
  };

  const page = (() => {
    switch (route.path) {
      case '/':
        return <OverviewPage />;
      case '/tiers':
        return <TiersPage />;
      case '/tenants':
        return <TenantsPage />;
      case '/organisations':
        return <OrganisationsPage />;
      case '/flags':
        return <FlagsPage />;
      case '/lab':
        if (features?.lab) return <LabPage />;
        if (!features) return <Loading what="the lab" />;
        return (
          <section>
            <h1>No lab here</h1>
            <p>This gateway is built without the lab (its scenario runs), so there is no Lab page.</p>
          </section>
        );
      default:
        return (
          <section>
            <h1>Page not found</h1>
            <p>
              There is no page at <code>{BASE + route.path}</code>. Pick one from the menu above.
            </p>
          </section>
        );
    }
  })();

  return (
    <ApiContext.Provider value={api}>
      <a className="skip" href="#main">
        Skip to content
      </a>
      <header className="top">
        <span className="brand">Sluice admin</span>
        <Nav pages={pagesFor(features)} current={route.path} />
        <span className="who">
          Signed in as <strong>{creds.user}</strong>
          <button type="button" onClick={logout}>
            Sign out
          </button>
        </span>
      </header>
      <main id="main" ref={mainRef} tabIndex={-1}>
        {page}
      </main>
    </ApiContext.Provider>
  );
}
