// Preloaded into a measured dpgw process (NODE_OPTIONS=--require): writes its peak
// resident set size in kilobytes and its CPU time to DPGW_BENCH_RSS_FILE (JSON) when it exits.
const { writeFileSync } = require('node:fs');
process.on('exit', () => {
  if (process.env.DPGW_BENCH_RSS_FILE) writeFileSync(process.env.DPGW_BENCH_RSS_FILE, JSON.stringify({ rssKb: process.resourceUsage().maxRSS, cpuMs: (process.cpuUsage().user + process.cpuUsage().system) / 1000 }));
});
