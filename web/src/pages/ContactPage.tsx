export function ContactPage() {
  return (
    <div className="container page narrow">
      <header className="page-header">
        <h1>Contact Us</h1>
        <p className="page-sub">Questions about plans, regions or your account? We are happy to help.</p>
      </header>
      <section className="card prose">
        <p>Write to <a href="mailto:support@upfleet.example">support@upfleet.example</a> and we will get back to you within one business day.</p>
        <p className="muted">Lost access to your two-factor device? Contact support to recover your account.</p>
      </section>
    </div>
  );
}
