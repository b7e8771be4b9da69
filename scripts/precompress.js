// Writes FILE.br (brotli, quality 11) and FILE.gz (gzip, level 9) beside each FILE given, so the
// server sends the smallest encoding the browser accepts without compressing on each request.
// Node's own zlib does both: nothing to install beyond the node the build already needs.
const fs = require('fs');
const zlib = require('zlib');

for (const file of process.argv.slice(2)) {
  const data = fs.readFileSync(file);
  const brotli = zlib.brotliCompressSync(data, {
    params: {
      [zlib.constants.BROTLI_PARAM_QUALITY]: 11,
      [zlib.constants.BROTLI_PARAM_SIZE_HINT]: data.length,
    },
  });
  fs.writeFileSync(`${file}.br`, brotli);
  fs.writeFileSync(`${file}.gz`, zlib.gzipSync(data, { level: 9 }));
  console.log(`${file}: ${data.length} B, br ${brotli.length} B`);
}
