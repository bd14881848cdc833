import { clickHouseErrorCode } from './connect'

// Where the code comes from differs between a server and the embedded engine (connect.ts).
export { clickHouseErrorCode }

// ClickHouse error codes that are about the inserted data itself: retrying the same rows
// cannot succeed. (src/Common/ErrorCodes.cpp)
const DATA_ERROR_CODES = new Set([
  6, // CANNOT_PARSE_TEXT
  25, // CANNOT_PARSE_ESCAPE_SEQUENCE
  26, // CANNOT_PARSE_QUOTED_STRING
  27, // CANNOT_PARSE_INPUT_ASSERTION_FAILED
  32, // ATTEMPT_TO_READ_AFTER_EOF
  33, // CANNOT_READ_ALL_DATA
  38, // CANNOT_PARSE_DATE
  41, // CANNOT_PARSE_DATETIME
  53, // TYPE_MISMATCH
  69, // ARGUMENT_OUT_OF_BOUND
  70, // CANNOT_CONVERT_TYPE
  72, // CANNOT_PARSE_NUMBER
  108, // NO_DATA_TO_INSERT
  117, // INCORRECT_DATA
  131, // TOO_LARGE_STRING_SIZE
  321, // VALUE_IS_OUT_OF_RANGE_OF_DATA_TYPE
  376, // CANNOT_PARSE_UUID
  377, // ILLEGAL_SYNTAX_FOR_DATA_TYPE
])

/** Whether ClickHouse refused the data itself (as opposed to being unavailable or overloaded). */
export function isDataRejection(err: unknown): boolean {
  const code = clickHouseErrorCode(err)
  return code !== undefined && DATA_ERROR_CODES.has(code)
}

/** Whether ClickHouse stopped a query at its time limit (TIMEOUT_EXCEEDED, TOO_SLOW), wherever in the chain of causes it says so. */
export function isQueryTimeout(err: unknown): boolean {
  for (let e: unknown = err, depth = 0; e !== undefined && e !== null && depth < 5; e = (e as { cause?: unknown }).cause, depth++) {
    const code = clickHouseErrorCode(e)
    if (code === 159 || code === 160) return true
  }
  return false
}
