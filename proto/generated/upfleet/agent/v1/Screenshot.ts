// Original file: proto/upfleet/agent/v1/agent_service.proto


/**
 * A browser check's screenshot (PNG or WebP, at most 300 kB).
 */
export interface Screenshot {
  /**
   * the step's name, or 'failure'
   */
  'name'?: (string);
  /**
   * image/png | image/webp
   */
  'mime'?: (string);
  'data'?: (Buffer | Uint8Array | string);
  /**
   * 1-based step it was taken at; 0: after the page load
   */
  'step'?: (number);
}

/**
 * A browser check's screenshot (PNG or WebP, at most 300 kB).
 */
export interface Screenshot__Output {
  /**
   * the step's name, or 'failure'
   */
  'name': (string);
  /**
   * image/png | image/webp
   */
  'mime': (string);
  'data': (Buffer);
  /**
   * 1-based step it was taken at; 0: after the page load
   */
  'step': (number);
}
