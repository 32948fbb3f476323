// The protobuf wire format, as far as Tron transactions need it: a message is a sequence of
// fields, each a varint (wire type 0) or length-delimited bytes (wire type 2). Parsing is
// strict, because the bytes a policy reads are the bytes that get signed: non-minimal varints,
// lengths past the end, and the fixed-width wire types (which no Tron message uses) are refused.
#pragma once

#include <string>
#include <vector>

#include "signet/encoding.hpp"

namespace signing {

struct ProtoField {
  uint32_t number = 0;
  bool isVarint = false;  // else length-delimited
  uint64_t varint = 0;
  signet::Bytes bytes;
};

// The top-level fields of one message, in order. InvalidArgument naming `what`.
std::vector<ProtoField> parseProtoFields(const signet::Bytes& data, const std::string& what);

void appendProtoVarint(signet::Bytes& out, uint64_t value);
void appendProtoBytes(signet::Bytes& out, uint32_t number, const signet::Bytes& bytes);

}  // namespace signing
