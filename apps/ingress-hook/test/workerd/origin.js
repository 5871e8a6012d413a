// Echo origin for the workerd tests: answers with the method, URL and headers it received.
export default {
  fetch(request) {
    return Response.json({
      method: request.method,
      url: request.url,
      headers: Object.fromEntries(request.headers),
    });
  },
};
