// Renders GET /api/openapi.json with swagger-ui (loaded just before this file by index.html).
window.addEventListener('load', function () {
  window.ui = window.SwaggerUIBundle({
    url: new URL('../openapi.json', window.location.href).toString(),
    dom_id: '#swagger-ui',
    deepLinking: true,
    presets: [window.SwaggerUIBundle.presets.apis],
    layout: 'BaseLayout',
  });
});
