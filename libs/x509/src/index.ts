/**
 * @esp/x509: a self-signed TLS certificate made with node:crypto alone, for a server that is its own CA (the
 * launcher's NATS, HTTPS in tests).
 *
 *   const { key, cert } = selfSignedCertificate({ commonName: 'esp stack nats', days: 3650 });
 */
export { DEFAULT_CERTIFICATE_HOSTS, selfSignedCertificate, type SelfSignedCertificate, type SelfSignedCertificateOptions } from './self-signed-certificate';
