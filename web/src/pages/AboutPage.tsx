import { Link } from 'react-router-dom';

export function AboutPage() {
  return (
    <div className="container page narrow">
      <header className="page-header">
        <h1>About Upfleet</h1>
        <p className="page-sub">Monitoring that tells you the truth about your uptime.</p>
      </header>
      <section className="card prose">
        <h2>Our Story</h2>
        <p>
          Upfleet started with a simple frustration: finding out from a customer that our own site was down. We built a
          monitor that checks from where users really are, keeps the numbers honest and sends the alert before the
          support ticket arrives.
        </p>
      </section>
      <section className="card prose">
        <h2>Our Mission</h2>
        <p>
          Make reliable monitoring available to every team, from a side project to a fleet of services, with clear
          graphs, fair plans and alerts on the channels you already use.
        </p>
      </section>
      <section className="cta">
        <h2>Join Our Mission</h2>
        <p>Start monitoring today or tell us what you need.</p>
        <div className="hero-actions">
          <Link to="/signup" className="btn btn-light btn-lg">Start Free Trial</Link>
          <Link to="/contact" className="btn btn-outline-light btn-lg">Contact Us</Link>
        </div>
      </section>
    </div>
  );
}
