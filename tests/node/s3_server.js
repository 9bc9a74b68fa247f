// An S3-compatible server for one test (@20minutes/s3rver, which verifies SigV4 signatures of
// header-signed and presigned requests); started by tests/support/s3_server.cpp.
//
// Usage: node s3_server.js <data-dir> <bucket> [<tls-key.pem> <tls-cert.pem>]
// Listens on 127.0.0.1 on a free port (https with a key and certificate), creates the bucket,
// prints the port on stdout, and exits when stdin closes, so it never outlives the test.
// Credentials: access key id S3RVER, secret S3RVER.
'use strict';

const fs = require('node:fs');
const S3rver = require('@20minutes/s3rver');

const [directory, bucket, keyFile, certFile] = process.argv.slice(2);
if (!directory || !bucket) {
  console.error('usage: node s3_server.js <data-dir> <bucket> [<tls-key.pem> <tls-cert.pem>]');
  process.exit(2);
}
const options = {
  address: '127.0.0.1',
  port: 0,
  directory,
  silent: true,
  configureBuckets: [{ name: bucket, configs: [] }],
};
if (keyFile && certFile) {
  options.key = fs.readFileSync(keyFile);
  options.cert = fs.readFileSync(certFile);
}

// Short keep-alive, so the tests see the server close idle connections that the client keeps.
const kKeepAliveMs = 1000;

const server = new S3rver(options);
server
  .run()
  .then((address) => {
    server.httpServer.keepAliveTimeout = kKeepAliveMs;
    process.stdout.write(`${address.port}\n`);
    process.stdin.on('end', () => process.exit(0));
    process.stdin.on('error', () => process.exit(0));
    process.stdin.resume();
  })
  .catch((error) => {
    console.error(error);
    process.exit(1);
  });
