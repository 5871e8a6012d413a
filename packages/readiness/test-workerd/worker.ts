/** The test worker: nothing to serve, the tests call the transport directly inside workerd. */
export default {
  fetch(): Response {
    return new Response("readiness workerd test worker");
  },
};
