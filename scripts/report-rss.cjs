// Preloaded into a measured dpgw process (NODE_OPTIONS=--require): writes its peak
// resident set size in kilobytes and its CPU time to DPGW_BENCH_RSS_FILE (JSON) when it exits.
// The peak is the process's own memory's high-water mark (VmHWM of /proc/self/status on
// Linux), not getrusage's maxRSS: Linux carries maxRSS over exec, and dpgw is spawned by
// the benchmark (fork, sharing the benchmark's pages) and then execs from /bin/sh into
// node, so maxRSS reported the benchmark's own size whenever it was the larger
// (docs/benchmarks.md, "Memory, as users run it").
const { readFileSync, writeFileSync } = require('node:fs');

function peakRssKb() {
  try {
    const hwm = /^VmHWM:\s+(\d+) kB$/m.exec(readFileSync('/proc/self/status', 'utf8'));
    if (hwm) return Number(hwm[1]);
  } catch {
    // Not Linux: getrusage's figure.
  }
  return process.resourceUsage().maxRSS;
}

process.on('exit', () => {
  if (process.env.DPGW_BENCH_RSS_FILE) writeFileSync(process.env.DPGW_BENCH_RSS_FILE, JSON.stringify({ rssKb: peakRssKb(), maxRssKb: process.resourceUsage().maxRSS, cpuMs: (process.cpuUsage().user + process.cpuUsage().system) / 1000 }));
});
