/** The largest id PostgreSQL's integer (serial) columns hold: a larger one names nothing. */
export const MAX_SERIAL_ID = 2 ** 31 - 1

/** Whether a number can be the id of a row with a serial id. */
export const isSerialIdNumber = (id: number): boolean => Number.isInteger(id) && id >= 1 && id <= MAX_SERIAL_ID
