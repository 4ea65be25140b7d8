// One AgentChannel (from the dist/ given) taking agents' reports, and a sample's snapshot of them once a second, as a
// session does: what receiving, parsing and keeping the reports costs memleak, alone. Prints the socket path, then runs
// until killed. Usage: node bench/lib/channel-server.mjs DIST_DIR PIDS
const [dist, pids] = process.argv.slice(2);
const { AgentChannel } = await import(`${dist}/agent/channel.js`);
const channel = await AgentChannel.open();
console.log(channel.socketPath);
const all = Array.from({ length: Number(pids) }, (_, i) => 100000 + i);
setInterval(() => channel.snapshot(all), 1000);
process.on("SIGTERM", () => {
  channel.close();
  process.exit(0);
});
