// Original file: proto/upfleet/agent/v1/agent_service.proto


/**
 * One step of a browser check: data, never code. Which fields count depends on the action.
 */
export interface BrowserStep {
  /**
   * goto click fill press wait_for expect_text expect_title expect_url expect_no_console_errors screenshot
   */
  'action'?: (string);
  /**
   * goto
   */
  'url'?: (string);
  /**
   * click fill wait_for expect_text: CSS, or Playwright's text=/role= forms
   */
  'selector'?: (string);
  /**
   * fill: in clear here (a secret one is opened for the agent that types it)
   */
  'value'?: (string);
  /**
   * fill: the value is masked in everything the agent reports
   */
  'secret'?: (boolean);
  /**
   * press
   */
  'key'?: (string);
  /**
   * wait_for (instead of selector)
   */
  'text'?: (string);
  /**
   * wait_for: visible hidden attached detached
   */
  'state'?: (string);
  /**
   * expect_text expect_title expect_url
   */
  'contains'?: (string);
  /**
   * expect_text
   */
  'equals'?: (string);
  /**
   * screenshot
   */
  'name'?: (string);
}

/**
 * One step of a browser check: data, never code. Which fields count depends on the action.
 */
export interface BrowserStep__Output {
  /**
   * goto click fill press wait_for expect_text expect_title expect_url expect_no_console_errors screenshot
   */
  'action': (string);
  /**
   * goto
   */
  'url': (string);
  /**
   * click fill wait_for expect_text: CSS, or Playwright's text=/role= forms
   */
  'selector': (string);
  /**
   * fill: in clear here (a secret one is opened for the agent that types it)
   */
  'value': (string);
  /**
   * fill: the value is masked in everything the agent reports
   */
  'secret': (boolean);
  /**
   * press
   */
  'key': (string);
  /**
   * wait_for (instead of selector)
   */
  'text': (string);
  /**
   * wait_for: visible hidden attached detached
   */
  'state': (string);
  /**
   * expect_text expect_title expect_url
   */
  'contains': (string);
  /**
   * expect_text
   */
  'equals': (string);
  /**
   * screenshot
   */
  'name': (string);
}
