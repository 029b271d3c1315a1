import { StrictMode } from 'react';
import { createRoot } from 'react-dom/client';
import { createBrowserRouter, RouterProvider } from 'react-router-dom';
import { appRoutes } from './routes';
import { createServices } from './services';
import { ServicesProvider } from './app-context';
import './styles.css';

let navigate: (path: string) => void = (path) => window.location.assign(path);
const services = createServices({ storage: window.localStorage, storageEvents: window, navigate: (p) => navigate(p) });
const router = createBrowserRouter(appRoutes);
navigate = (p) => void router.navigate(p);

// Session validation on load; protected pages show a spinner until it answers.
void services.actions.validateSession();

createRoot(document.getElementById('root')!).render(
  <StrictMode>
    <ServicesProvider services={services}>
      <RouterProvider router={router} />
    </ServicesProvider>
  </StrictMode>,
);
