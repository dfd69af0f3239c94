// Preloaded into a measured dpgw process (node -r): writes its peak resident
// set size in kilobytes to DPGW_BENCH_RSS_FILE when it exits.
const { writeFileSync } = require('node:fs');
process.on('exit', () => {
  if (process.env.DPGW_BENCH_RSS_FILE) writeFileSync(process.env.DPGW_BENCH_RSS_FILE, String(process.resourceUsage().maxRSS));
});
