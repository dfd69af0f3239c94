// Preloaded into a measured dpgw process (BENCH_NODE_OPTIONS="--require=…/scripts/cpu-profile.cjs"),
// since node refuses --cpu-prof in NODE_OPTIONS: profiles the whole process with the
// inspector and writes a .cpuprofile (Chrome DevTools' format) to DPGW_CPU_PROFILE_DIR
// (default: the working folder) when it exits. Sampling every 100 µs.
const { Session } = require('node:inspector');
const { mkdirSync, writeFileSync } = require('node:fs');
const { join } = require('node:path');

const session = new Session();
session.connect();
session.post('Profiler.enable');
session.post('Profiler.setSamplingInterval', { interval: 100 });
session.post('Profiler.start');
process.on('exit', () => {
  // A session on the main thread answers at once, so this runs before the process ends.
  session.post('Profiler.stop', (error, result) => {
    if (error) return;
    const dir = process.env.DPGW_CPU_PROFILE_DIR || process.cwd();
    mkdirSync(dir, { recursive: true });
    writeFileSync(join(dir, `dpgw-${process.pid}.cpuprofile`), JSON.stringify(result.profile));
  });
});
