/**
 * An address where a connection is refused (ECONNREFUSED) for certain: port 2 on the loopback,
 * below the ephemeral range, which nothing on a test machine binds. A fake that stops listening
 * frees its port for anyone: under a parallel suite another test's server can take it (the client
 * then meets that server, not a refusal), and a connection to a free ephemeral port can even be
 * answered by its own source port (a TCP self-connect).
 */
export const REFUSED_PORT = 2
export const REFUSED_URL = `http://127.0.0.1:${REFUSED_PORT}`
