// Preloaded into a measured dpgw process (NODE_OPTIONS=--require): writes its peak
// resident set size in kilobytes and its CPU time to DPGW_BENCH_RSS_FILE (JSON) when it exits.
// The peak is the kernel's high-water mark of this process's own memory (VmHWM): getrusage's
// maxRSS, which Linux carries across fork and exec, reported the bench's own parent (its
// sandbox, 800 MB with 10,000 data sets) for every child instead (issue #35).
const { readFileSync, writeFileSync } = require('node:fs');

function peakRssKb() {
  try {
    const hwm = /^VmHWM:\s+(\d+) kB$/m.exec(readFileSync('/proc/self/status', 'utf8'));
    if (hwm) return Number(hwm[1]);
  } catch {
    // No procfs (macOS): getrusage's figure.
  }
  return process.resourceUsage().maxRSS;
}

process.on('exit', () => {
  if (process.env.DPGW_BENCH_RSS_FILE) writeFileSync(process.env.DPGW_BENCH_RSS_FILE, JSON.stringify({ rssKb: peakRssKb(), cpuMs: (process.cpuUsage().user + process.cpuUsage().system) / 1000 }));
});
