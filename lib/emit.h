/* emit.h: the program model as text and as JSON (see emit.c). */
#ifndef KFUSE_EMIT_H
#define KFUSE_EMIT_H

#include "model.h"

void emit_model_text(const kmodel *m, strbuf *b);
void emit_model_json(const kmodel *m, strbuf *b);

#endif
