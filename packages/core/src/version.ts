/** The service's version, as the API reports it. */
export const SERVICE_VERSION = '0.1.0'
