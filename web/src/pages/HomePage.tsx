import { Link } from 'react-router-dom';
import { ActivityIcon, BellIcon, GlobeIcon, ShieldIcon } from '../components/Icons';

const FEATURES = [
  { icon: ActivityIcon, title: 'Real-time Monitoring', text: 'Response codes and response times checked around the clock, with graphs that show every blip.' },
  { icon: BellIcon, title: 'Fast Notification', text: 'Alerts by email, Slack, Telegram, Discord, Teams, SMS or webhook the moment something breaks.' },
  { icon: ShieldIcon, title: 'SSL Certificate Monitoring', text: 'Know weeks ahead when a certificate is about to expire, before your visitors see a warning.' },
  { icon: GlobeIcon, title: 'Global Coverage', text: 'Check from several regions to see what your users see, wherever they are.' },
];

export function HomePage() {
  return (
    <>
      <section className="hero">
        <div className="container hero-inner">
          <span className="eyebrow">Uptime monitoring for websites and APIs</span>
          <h1 className="hero-title">
            Know your site is up, <span className="gradient-text">before your users ask.</span>
          </h1>
          <p className="hero-sub">
            Upfleet watches your endpoints from multiple regions, tracks response times and SSL certificates, and alerts
            you the moment something goes wrong.
          </p>
          <div className="hero-actions">
            <Link to="/signup" className="btn btn-primary btn-lg">Get Started Free</Link>
            <Link to="/pricing" className="btn btn-secondary btn-lg">View Pricing</Link>
          </div>
          <p className="hero-note">Free plan: 10 endpoints, 5-minute checks, no credit card.</p>
          <div className="hero-visual" aria-hidden="true">
            <div className="hero-card">
              <div className="hero-card-row"><span className="dot dot-green" /> api.example.com <span className="badge badge-green">99.98%</span></div>
              <div className="hero-card-row"><span className="dot dot-green" /> shop.example.com <span className="badge badge-green">100.00%</span></div>
              <div className="hero-card-row"><span className="dot dot-yellow" /> status.example.com <span className="badge badge-yellow">97.41%</span></div>
              <svg viewBox="0 0 300 60" className="hero-spark"><path d="M0 40 L30 38 L60 42 L90 30 L120 34 L150 20 L180 26 L210 18 L240 24 L270 12 L300 16" fill="none" stroke="currentColor" strokeWidth="3" strokeLinecap="round" /></svg>
            </div>
          </div>
        </div>
      </section>
      <section className="section">
        <div className="container">
          <h2 className="section-title">Everything you need to stay online</h2>
          <p className="section-sub">Simple to set up, precise when it matters.</p>
          <div className="feature-grid">
            {FEATURES.map((f) => (
              <article key={f.title} className="card feature-card">
                <span className="feature-icon"><f.icon width={22} height={22} /></span>
                <h3>{f.title}</h3>
                <p>{f.text}</p>
              </article>
            ))}
          </div>
        </div>
      </section>
      <section className="section">
        <div className="container">
          <div className="cta">
            <h2>Start monitoring in under a minute</h2>
            <p>Add your first endpoint and see its first check right away.</p>
            <Link to="/signup" className="btn btn-light btn-lg">Get Started Free</Link>
          </div>
        </div>
      </section>
    </>
  );
}
