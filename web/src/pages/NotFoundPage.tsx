import { Link } from 'react-router-dom';

export function NotFoundPage() {
  return (
    <div className="container page narrow center">
      <h1>Page not found</h1>
      <p className="page-sub">The page you are looking for does not exist.</p>
      <Link to="/" className="btn btn-primary">Back to Home</Link>
    </div>
  );
}
