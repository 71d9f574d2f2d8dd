// Reference firmware for a tactus clock: the open protocol, version 1
// (../../PROTOCOL.md). Documentation, not built by CI. Board: an Arduino
// Uno/Nano/Pro Micro or any Arduino-core board with USB serial. Display: a
// 16x2 HD44780 LCD on an I2C backpack (library LiquidCrystal_I2C).
// SPDX-License-Identifier: GPL-3.0-or-later

#include <Wire.h>
#include <LiquidCrystal_I2C.h>

// Pins: switches close to GND (internal pull-ups); the buzzer is active.
const uint8_t PIN_LEVER_W = 2, PIN_LEVER_B = 3;
const uint8_t PIN_TIME = 4, PIN_PAUSE = 5, PIN_MOVE = 6;
const uint8_t PIN_BUZZER = 8;
const uint8_t NAMED_PINS[] = {PIN_LEVER_W, PIN_LEVER_B, PIN_TIME, PIN_PAUSE, PIN_MOVE};
const uint8_t N_INPUTS = sizeof NAMED_PINS;
const unsigned long DEBOUNCE_MS = 20, RESEND_MS = 300, HOST_TIMEOUT_MS = 3000;
const uint8_t MAX_LINE = 120, MAX_EVENTS = 8;

LiquidCrystal_I2C lcd(0x27, 16, 2);

// What the host last set, and our own counting from it.
long ms[2] = {0, 0};            // White, Black
long delayLeft = 0;
int8_t running = -1;            // 0 White, 1 Black, -1 none
unsigned long moves[2] = {0, 0};
unsigned long lastTick = 0;
char text[33] = "";             // shown instead of the times when not empty

// Protocol state.
char line[MAX_LINE + 1];
uint8_t lineLen = 0;
bool overflow = false;
long lastSeq = -1;              // last command done, -1: none
unsigned long lastHostLine = 0;
uint16_t nextEseq = 0;
char events[MAX_EVENTS][48];    // unacknowledged event payloads, oldest first
uint16_t eventSeq[MAX_EVENTS];
uint8_t nEvents = 0;
unsigned long eventSentAt = 0;
unsigned long beepUntil = 0;

void sendLine(const char *payload) {
  uint8_t sum = 0;
  for (const char *p = payload; *p; p++) sum ^= (uint8_t)*p;
  char tail[5];
  snprintf(tail, sizeof tail, "*%02X", sum);
  Serial.print(payload);
  Serial.println(tail);          // println ends with \r\n: the host ignores \r
}

void sendError(const char *code) {
  char p[24];
  snprintf(p, sizeof p, "ERR %s", code);
  sendLine(p);
}

void sendFirstEvent() {
  if (nEvents == 0) return;
  sendLine(events[0]);
  eventSentAt = millis();
}

void pushEvent(const char *kind, const char *what) {
  if (nEvents == MAX_EVENTS) {   // drop the oldest
    for (uint8_t i = 1; i < MAX_EVENTS; i++) {
      memcpy(events[i - 1], events[i], sizeof events[0]);
      eventSeq[i - 1] = eventSeq[i];
    }
    nEvents--;
  }
  uint16_t e = ++nextEseq;
  snprintf(events[nEvents], sizeof events[0], "%s %u %s %lu", kind, e, what, millis());
  eventSeq[nEvents++] = e;
  if (nEvents == 1) sendFirstEvent();
}

void ack(uint16_t e) {
  if (nEvents == 0 || eventSeq[0] != e) return;
  for (uint8_t i = 1; i < nEvents; i++) {
    memcpy(events[i - 1], events[i], sizeof events[0]);
    eventSeq[i - 1] = eventSeq[i];
  }
  nEvents--;
  sendFirstEvent();
}

// Runs a command once per seq; acknowledges it every time.
bool firstTime(long seq) {
  char ok[16];
  snprintf(ok, sizeof ok, "OK %ld", seq);
  bool fresh = seq != lastSeq;
  lastSeq = seq;
  sendLine(ok);
  return fresh;
}

void handle(char *payload) {
  char *cmd = strtok(payload, " ");
  if (!cmd) { sendError("SYNTAX"); return; }
  if (!strcmp(cmd, "TACTUS")) {
    char *v = strtok(NULL, " ");
    if (!v || strcmp(v, "1")) { sendLine("ERR VERSION 1"); return; }
    lastSeq = -1;
    nEvents = 0;                 // a stale press must not count
    sendLine("CLOCK 1 tactus-uno 1.0");
  } else if (!strcmp(cmd, "SET")) {
    char *f[7];
    for (uint8_t i = 0; i < 7; i++) if (!(f[i] = strtok(NULL, " "))) { sendError("SYNTAX"); return; }
    if (firstTime(atol(f[0]))) {
      ms[0] = atol(f[1]); ms[1] = atol(f[2]);
      running = f[3][0] == 'W' ? 0 : f[3][0] == 'B' ? 1 : -1;
      moves[0] = strtoul(f[4], NULL, 10); moves[1] = strtoul(f[5], NULL, 10);
      delayLeft = atol(f[6]);
      text[0] = 0;
      lastTick = millis();
    }
  } else if (!strcmp(cmd, "BEEP")) {
    char *seq = strtok(NULL, " "), *dur = strtok(NULL, " ");
    if (!seq || !dur) { sendError("SYNTAX"); return; }
    if (firstTime(atol(seq))) beepUntil = millis() + atol(dur);
  } else if (!strcmp(cmd, "TEXT")) {
    char *seq = strtok(NULL, " ");
    char *rest = strtok(NULL, "");   // the text keeps its spaces
    if (!seq) { sendError("SYNTAX"); return; }
    if (firstTime(atol(seq))) { strncpy(text, rest ? rest : "", 32); text[32] = 0; }
  } else if (!strcmp(cmd, "PING")) {
    char *seq = strtok(NULL, " ");
    if (!seq) { sendError("SYNTAX"); return; }
    char p[32];
    snprintf(p, sizeof p, "PONG %s %lu", seq, millis());
    sendLine(p);
  } else if (!strcmp(cmd, "ACK")) {
    char *e = strtok(NULL, " ");
    if (e) ack((uint16_t)atol(e));
  } else {
    sendError("SYNTAX");
  }
}

// Checks "PAYLOAD*HH" and hands PAYLOAD on.
void gotLine() {
  if (lineLen && line[lineLen - 1] == '\r') lineLen--;
  line[lineLen] = 0;
  char *star = strrchr(line, '*');
  if (!star || strlen(star) != 3) { sendError("CHECKSUM"); return; }
  uint8_t sum = 0;
  for (char *p = line; p < star; p++) {
    if (*p < 0x20 || *p > 0x7e) { sendError("CHECKSUM"); return; }
    sum ^= (uint8_t)*p;
  }
  if (strtoul(star + 1, NULL, 16) != sum) { sendError("CHECKSUM"); return; }
  *star = 0;
  lastHostLine = millis();
  handle(line);
}

void readSerial() {
  while (Serial.available()) {
    char c = Serial.read();
    if (c == '\n') {
      if (overflow) sendError("TOOLONG"); else gotLine();
      lineLen = 0; overflow = false;
    } else if (!overflow) {
      if (lineLen == MAX_LINE - 1) overflow = true; else line[lineLen++] = c;
    }
  }
}

// Inputs: debounced, an event on each press.
bool stable[N_INPUTS];
unsigned long changedAt[N_INPUTS];

void readInputs() {
  for (uint8_t i = 0; i < N_INPUTS; i++) {
    bool down = digitalRead(NAMED_PINS[i]) == LOW;
    if (down == stable[i]) { changedAt[i] = millis(); continue; }
    if (millis() - changedAt[i] < DEBOUNCE_MS) continue;
    stable[i] = down;
    if (!down) continue;
    switch (NAMED_PINS[i]) {
      case PIN_LEVER_W: pushEvent("LEVER", "W"); if (running == 0) { running = 1; lastTick = millis(); } break;
      case PIN_LEVER_B: pushEvent("LEVER", "B"); if (running == 1) { running = 0; lastTick = millis(); } break;
      case PIN_TIME: pushEvent("BUTTON", "TIME"); break;
      case PIN_PAUSE: pushEvent("BUTTON", "PAUSE"); break;
      case PIN_MOVE: pushEvent("BUTTON", "MOVE"); break;
    }
  }
}

// Counting alone between SETs: the delay first, then the time, down to zero.
void count() {
  unsigned long now = millis();
  long dt = now - lastTick;
  lastTick = now;
  if (running < 0) return;
  long fromDelay = min(dt, delayLeft);
  delayLeft -= fromDelay;
  ms[running] = max(0L, ms[running] - (dt - fromDelay));
}

void formatTime(char *out, long t) {
  unsigned long s = (t + 999) / 1000;  // rounded up: 0:00 only when it is gone
  if (s >= 3600) snprintf(out, 9, "%lu:%02lu:%02lu", s / 3600, s / 60 % 60, s % 60);
  else snprintf(out, 9, "%lu:%02lu", s / 60, s % 60);
}

void draw() {
  static unsigned long lastDraw = 0;
  if (millis() - lastDraw < 100) return;
  lastDraw = millis();
  char row[17], w[9], b[9];
  if (text[0]) {
    snprintf(row, sizeof row, "%-16.16s", text); lcd.setCursor(0, 0); lcd.print(row);
    snprintf(row, sizeof row, "%-16.16s", strlen(text) > 16 ? text + 16 : ""); lcd.setCursor(0, 1); lcd.print(row);
    return;
  }
  formatTime(w, ms[0]); formatTime(b, ms[1]);
  snprintf(row, sizeof row, "%c%-7s %c%-6s", running == 0 ? '>' : ' ', w, running == 1 ? '>' : ' ', b);
  lcd.setCursor(0, 0); lcd.print(row);
  bool linked = millis() - lastHostLine < HOST_TIMEOUT_MS;
  snprintf(row, sizeof row, "%3lu  %s  %3lu", moves[0], linked ? "    " : "nolk", moves[1]);
  lcd.setCursor(0, 1); lcd.print(row);
}

void setup() {
  Serial.begin(115200);
  for (uint8_t i = 0; i < N_INPUTS; i++) pinMode(NAMED_PINS[i], INPUT_PULLUP);
  pinMode(PIN_BUZZER, OUTPUT);
  lcd.init();
  lcd.backlight();
  lastTick = millis();
}

void loop() {
  readSerial();
  readInputs();
  if (nEvents && millis() - eventSentAt >= RESEND_MS) sendFirstEvent();
  digitalWrite(PIN_BUZZER, (long)(beepUntil - millis()) > 0 ? HIGH : LOW);
  count();
  draw();
}
