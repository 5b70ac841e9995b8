export function instantiate(getCoreModule, imports, instantiateCore = (module, importObject) => new WebAssembly.Instance(module, importObject)) {
  
  function clampGuest(i, min, max) {
    if (i < min || i > max) throw new TypeError(`must be between ${min} and ${max}`);
    return i;
  }
  
  class ComponentError extends Error {
    constructor (value) {
      const enumerable = typeof value !== 'string';
      super(enumerable ? `${String(value)} (see error.payload)` : value);
      Object.defineProperty(this, 'payload', { value, enumerable });
    }
  }
  
  let dv = new DataView(new ArrayBuffer());
  const dataView = mem => dv.buffer === mem.buffer ? dv : dv = new DataView(mem.buffer);
  
  function throwInvalidBool() {
    throw new TypeError('invalid variant discriminant for bool');
  }
  
  const toUint64 = val => BigInt.asUintN(64, BigInt(val));
  
  function toUint16(val) {
    val >>>= 0;
    val %= 2 ** 16;
    return val;
  }
  
  function toUint32(val) {
    return val >>> 0;
  }
  
  const utf8Decoder = new TextDecoder();
  
  const utf8Encoder = new TextEncoder();
  
  let utf8EncodedLen = 0;
  function utf8Encode(s, realloc, memory) {
    if (typeof s !== 'string') throw new TypeError('expected a string');
    if (s.length === 0) {
      utf8EncodedLen = 0;
      return 1;
    }
    let buf = utf8Encoder.encode(s);
    let ptr = realloc(0, 0, 1, buf.length);
    new Uint8Array(memory.buffer).set(buf, ptr);
    utf8EncodedLen = buf.length;
    return ptr;
  }
  
  
  const module0 = getCoreModule('oncely-core.core.wasm');
  
  let gen = (function* init () {
    let exports0;
    let memory0;
    let realloc0;
    let postReturn0;
    let postReturn1;
    let postReturn2;
    let postReturn3;
    let postReturn4;
    let postReturn5;
    let postReturn6;
    let postReturn7;
    let postReturn8;
    let postReturn9;
    let postReturn10;
    let postReturn11;
    let postReturn12;
    let postReturn13;
    let postReturn14;
    let postReturn15;
    let postReturn16;
    let postReturn17;
    let postReturn18;
    let postReturn19;
    let postReturn20;
    let postReturn21;
    let postReturn22;
    let postReturn23;
    ({ exports: exports0 } = instantiateCore(module0));
    memory0 = exports0.memory;
    realloc0 = exports0.cabi_realloc;
    postReturn0 = exports0['cabi_post_oncely:core/canonical@0.1.0#canonicalize'];
    postReturn1 = exports0['cabi_post_oncely:core/keys@0.1.0#derive'];
    postReturn2 = exports0['cabi_post_oncely:core/keys@0.1.0#key'];
    postReturn3 = exports0['cabi_post_oncely:core/keys@0.1.0#derive-many'];
    postReturn4 = exports0['cabi_post_oncely:core/keys@0.1.0#default-spec'];
    postReturn5 = exports0['cabi_post_oncely:core/keys@0.1.0#args-refused'];
    postReturn6 = exports0['cabi_post_oncely:core/keys@0.1.0#explain'];
    postReturn7 = exports0['cabi_post_oncely:core/policy@0.1.0#default-policy'];
    postReturn8 = exports0['cabi_post_oncely:core/policy@0.1.0#parse-policy'];
    postReturn9 = exports0['cabi_post_oncely:core/policy@0.1.0#resolve-tool'];
    postReturn10 = exports0['cabi_post_oncely:core/policy@0.1.0#check-manifest'];
    postReturn11 = exports0['cabi_post_oncely:core/ledger@0.1.0#prepare'];
    postReturn12 = exports0['cabi_post_oncely:core/ledger@0.1.0#decision-of'];
    postReturn13 = exports0['cabi_post_oncely:core/effect@0.1.0#defaults'];
    postReturn14 = exports0['cabi_post_oncely:core/effect@0.1.0#run'];
    postReturn15 = exports0['cabi_post_oncely:core/provider@0.1.0#admit'];
    postReturn16 = exports0['cabi_post_oncely:core/provider@0.1.0#oversized'];
    postReturn17 = exports0['cabi_post_oncely:core/provider@0.1.0#check-operation'];
    postReturn18 = exports0['cabi_post_oncely:core/provider@0.1.0#record-http'];
    postReturn19 = exports0['cabi_post_oncely:core/provider@0.1.0#replay-http'];
    postReturn20 = exports0['cabi_post_oncely:core/provider@0.1.0#refuse'];
    postReturn21 = exports0['cabi_post_oncely:core/agent@0.1.0#identify'];
    postReturn22 = exports0['cabi_post_oncely:core/agent@0.1.0#approval-prompt'];
    postReturn23 = exports0['cabi_post_oncely:core/agent@0.1.0#answer'];
    let canonical010MaxInputBytes;
    
    function maxInputBytes() {
      const ret = canonical010MaxInputBytes();
      return BigInt.asUintN(64, ret);
    }
    let canonical010MaxDepth;
    
    function maxDepth() {
      const ret = canonical010MaxDepth();
      return ret >>> 0;
    }
    let canonical010Canonicalize;
    
    function canonicalize(arg0) {
      var ptr0 = utf8Encode(arg0, realloc0, memory0);
      var len0 = utf8EncodedLen;
      const ret = canonical010Canonicalize(ptr0, len0);
      let variant4;
      switch (dataView(memory0).getUint8(ret + 0, true)) {
        case 0: {
          var ptr1 = dataView(memory0).getInt32(ret + 8, true);
          var len1 = dataView(memory0).getInt32(ret + 12, true);
          var result1 = utf8Decoder.decode(new Uint8Array(memory0.buffer, ptr1, len1));
          variant4= {
            tag: 'ok',
            val: result1
          };
          break;
        }
        case 1: {
          let enum2;
          switch (dataView(memory0).getUint8(ret + 8, true)) {
            case 0: {
              enum2 = 'syntax';
              break;
            }
            case 1: {
              enum2 = 'invalid-utf8';
              break;
            }
            case 2: {
              enum2 = 'lone-surrogate';
              break;
            }
            case 3: {
              enum2 = 'duplicate-key';
              break;
            }
            case 4: {
              enum2 = 'number-overflow';
              break;
            }
            case 5: {
              enum2 = 'inexact-integer';
              break;
            }
            case 6: {
              enum2 = 'too-deep';
              break;
            }
            case 7: {
              enum2 = 'too-large';
              break;
            }
            default: {
              throw new TypeError('invalid discriminant specified for CanonErrorKind');
            }
          }
          var ptr3 = dataView(memory0).getInt32(ret + 32, true);
          var len3 = dataView(memory0).getInt32(ret + 36, true);
          var result3 = utf8Decoder.decode(new Uint8Array(memory0.buffer, ptr3, len3));
          variant4= {
            tag: 'err',
            val: {
              kind: enum2,
              offset: BigInt.asUintN(64, dataView(memory0).getBigInt64(ret + 16, true)),
              line: dataView(memory0).getInt32(ret + 24, true) >>> 0,
              column: dataView(memory0).getInt32(ret + 28, true) >>> 0,
              message: result3,
            }
          };
          break;
        }
        default: {
          throw new TypeError('invalid variant discriminant for expected');
        }
      }
      const retVal = variant4;
      postReturn0(ret);
      if (typeof retVal === 'object' && retVal.tag === 'err') {
        throw new ComponentError(retVal.val);
      }
      return retVal.val;
    }
    let canonical010CanonicalizeBytes;
    
    function canonicalizeBytes(arg0) {
      var val0 = arg0;
      var len0 = val0.byteLength;
      var ptr0 = realloc0(0, 0, 1, len0 * 1);
      var src0 = new Uint8Array(val0.buffer || val0, val0.byteOffset, len0 * 1);
      (new Uint8Array(memory0.buffer, ptr0, len0 * 1)).set(src0);
      const ret = canonical010CanonicalizeBytes(ptr0, len0);
      let variant4;
      switch (dataView(memory0).getUint8(ret + 0, true)) {
        case 0: {
          var ptr1 = dataView(memory0).getInt32(ret + 8, true);
          var len1 = dataView(memory0).getInt32(ret + 12, true);
          var result1 = utf8Decoder.decode(new Uint8Array(memory0.buffer, ptr1, len1));
          variant4= {
            tag: 'ok',
            val: result1
          };
          break;
        }
        case 1: {
          let enum2;
          switch (dataView(memory0).getUint8(ret + 8, true)) {
            case 0: {
              enum2 = 'syntax';
              break;
            }
            case 1: {
              enum2 = 'invalid-utf8';
              break;
            }
            case 2: {
              enum2 = 'lone-surrogate';
              break;
            }
            case 3: {
              enum2 = 'duplicate-key';
              break;
            }
            case 4: {
              enum2 = 'number-overflow';
              break;
            }
            case 5: {
              enum2 = 'inexact-integer';
              break;
            }
            case 6: {
              enum2 = 'too-deep';
              break;
            }
            case 7: {
              enum2 = 'too-large';
              break;
            }
            default: {
              throw new TypeError('invalid discriminant specified for CanonErrorKind');
            }
          }
          var ptr3 = dataView(memory0).getInt32(ret + 32, true);
          var len3 = dataView(memory0).getInt32(ret + 36, true);
          var result3 = utf8Decoder.decode(new Uint8Array(memory0.buffer, ptr3, len3));
          variant4= {
            tag: 'err',
            val: {
              kind: enum2,
              offset: BigInt.asUintN(64, dataView(memory0).getBigInt64(ret + 16, true)),
              line: dataView(memory0).getInt32(ret + 24, true) >>> 0,
              column: dataView(memory0).getInt32(ret + 28, true) >>> 0,
              message: result3,
            }
          };
          break;
        }
        default: {
          throw new TypeError('invalid variant discriminant for expected');
        }
      }
      const retVal = variant4;
      postReturn0(ret);
      if (typeof retVal === 'object' && retVal.tag === 'err') {
        throw new ComponentError(retVal.val);
      }
      return retVal.val;
    }
    let keys010Derive;
    
    function derive(arg0, arg1) {
      var {scope: v0_0, runId: v0_1, stepId: v0_2, tool: v0_3, argsJson: v0_4 } = arg0;
      var ptr1 = utf8Encode(v0_0, realloc0, memory0);
      var len1 = utf8EncodedLen;
      var ptr2 = utf8Encode(v0_1, realloc0, memory0);
      var len2 = utf8EncodedLen;
      var ptr3 = utf8Encode(v0_2, realloc0, memory0);
      var len3 = utf8EncodedLen;
      var ptr4 = utf8Encode(v0_3, realloc0, memory0);
      var len4 = utf8EncodedLen;
      var ptr5 = utf8Encode(v0_4, realloc0, memory0);
      var len5 = utf8EncodedLen;
      var {only: v6_0, ignore: v6_1, identity: v6_2 } = arg1;
      var variant9 = v6_0;
      let variant9_0;
      let variant9_1;
      let variant9_2;
      if (variant9 === null || variant9=== undefined) {
        variant9_0 = 0;
        variant9_1 = 0;
        variant9_2 = 0;
      } else {
        const e = variant9;
        var vec8 = e;
        var len8 = vec8.length;
        var result8 = realloc0(0, 0, 4, len8 * 8);
        for (let i = 0; i < vec8.length; i++) {
          const e = vec8[i];
          const base = result8 + i * 8;var ptr7 = utf8Encode(e, realloc0, memory0);
          var len7 = utf8EncodedLen;
          dataView(memory0).setInt32(base + 4, len7, true);
          dataView(memory0).setInt32(base + 0, ptr7, true);
        }
        variant9_0 = 1;
        variant9_1 = result8;
        variant9_2 = len8;
      }
      var vec11 = v6_1;
      var len11 = vec11.length;
      var result11 = realloc0(0, 0, 4, len11 * 8);
      for (let i = 0; i < vec11.length; i++) {
        const e = vec11[i];
        const base = result11 + i * 8;var ptr10 = utf8Encode(e, realloc0, memory0);
        var len10 = utf8EncodedLen;
        dataView(memory0).setInt32(base + 4, len10, true);
        dataView(memory0).setInt32(base + 0, ptr10, true);
      }
      var val12 = v6_2;
      let enum12;
      switch (val12) {
        case 'step': {
          enum12 = 0;
          break;
        }
        case 'run': {
          enum12 = 1;
          break;
        }
        case 'scope': {
          enum12 = 2;
          break;
        }
        default: {
          if ((v6_2) instanceof Error) {
            console.error(v6_2);
          }
          
          throw new TypeError(`"${val12}" is not one of the cases of key-identity`);
        }
      }
      const ret = keys010Derive(ptr1, len1, ptr2, len2, ptr3, len3, ptr4, len4, ptr5, len5, variant9_0, variant9_1, variant9_2, result11, len11, enum12);
      let variant24;
      switch (dataView(memory0).getUint8(ret + 0, true)) {
        case 0: {
          var ptr13 = dataView(memory0).getInt32(ret + 8, true);
          var len13 = dataView(memory0).getInt32(ret + 12, true);
          var result13 = utf8Decoder.decode(new Uint8Array(memory0.buffer, ptr13, len13));
          var ptr14 = dataView(memory0).getInt32(ret + 16, true);
          var len14 = dataView(memory0).getInt32(ret + 20, true);
          var result14 = utf8Decoder.decode(new Uint8Array(memory0.buffer, ptr14, len14));
          var ptr15 = dataView(memory0).getInt32(ret + 24, true);
          var len15 = dataView(memory0).getInt32(ret + 28, true);
          var result15 = utf8Decoder.decode(new Uint8Array(memory0.buffer, ptr15, len15));
          var ptr16 = dataView(memory0).getInt32(ret + 32, true);
          var len16 = dataView(memory0).getInt32(ret + 36, true);
          var result16 = utf8Decoder.decode(new Uint8Array(memory0.buffer, ptr16, len16));
          variant24= {
            tag: 'ok',
            val: {
              key: result13,
              preimage: result14,
              fingerprint: result15,
              argsCanonical: result16,
            }
          };
          break;
        }
        case 1: {
          let enum17;
          switch (dataView(memory0).getUint8(ret + 8, true)) {
            case 0: {
              enum17 = 'invalid-args';
              break;
            }
            case 1: {
              enum17 = 'invalid-pointer';
              break;
            }
            case 2: {
              enum17 = 'missing-member';
              break;
            }
            case 3: {
              enum17 = 'pointer-into-array';
              break;
            }
            case 4: {
              enum17 = 'empty-field';
              break;
            }
            default: {
              throw new TypeError('invalid discriminant specified for KeyErrorKind');
            }
          }
          let variant19;
          switch (dataView(memory0).getUint8(ret + 12, true)) {
            case 0: {
              variant19 = undefined;
              break;
            }
            case 1: {
              var ptr18 = dataView(memory0).getInt32(ret + 16, true);
              var len18 = dataView(memory0).getInt32(ret + 20, true);
              var result18 = utf8Decoder.decode(new Uint8Array(memory0.buffer, ptr18, len18));
              variant19 = result18;
              break;
            }
            default: {
              throw new TypeError('invalid variant discriminant for option');
            }
          }
          let variant22;
          switch (dataView(memory0).getUint8(ret + 24, true)) {
            case 0: {
              variant22 = undefined;
              break;
            }
            case 1: {
              let enum20;
              switch (dataView(memory0).getUint8(ret + 32, true)) {
                case 0: {
                  enum20 = 'syntax';
                  break;
                }
                case 1: {
                  enum20 = 'invalid-utf8';
                  break;
                }
                case 2: {
                  enum20 = 'lone-surrogate';
                  break;
                }
                case 3: {
                  enum20 = 'duplicate-key';
                  break;
                }
                case 4: {
                  enum20 = 'number-overflow';
                  break;
                }
                case 5: {
                  enum20 = 'inexact-integer';
                  break;
                }
                case 6: {
                  enum20 = 'too-deep';
                  break;
                }
                case 7: {
                  enum20 = 'too-large';
                  break;
                }
                default: {
                  throw new TypeError('invalid discriminant specified for CanonErrorKind');
                }
              }
              var ptr21 = dataView(memory0).getInt32(ret + 56, true);
              var len21 = dataView(memory0).getInt32(ret + 60, true);
              var result21 = utf8Decoder.decode(new Uint8Array(memory0.buffer, ptr21, len21));
              variant22 = {
                kind: enum20,
                offset: BigInt.asUintN(64, dataView(memory0).getBigInt64(ret + 40, true)),
                line: dataView(memory0).getInt32(ret + 48, true) >>> 0,
                column: dataView(memory0).getInt32(ret + 52, true) >>> 0,
                message: result21,
              };
              break;
            }
            default: {
              throw new TypeError('invalid variant discriminant for option');
            }
          }
          var ptr23 = dataView(memory0).getInt32(ret + 64, true);
          var len23 = dataView(memory0).getInt32(ret + 68, true);
          var result23 = utf8Decoder.decode(new Uint8Array(memory0.buffer, ptr23, len23));
          variant24= {
            tag: 'err',
            val: {
              kind: enum17,
              at: variant19,
              canon: variant22,
              message: result23,
            }
          };
          break;
        }
        default: {
          throw new TypeError('invalid variant discriminant for expected');
        }
      }
      const retVal = variant24;
      postReturn1(ret);
      if (typeof retVal === 'object' && retVal.tag === 'err') {
        throw new ComponentError(retVal.val);
      }
      return retVal.val;
    }
    let keys010Key;
    
    function key(arg0, arg1) {
      var {scope: v0_0, runId: v0_1, stepId: v0_2, tool: v0_3, argsJson: v0_4 } = arg0;
      var ptr1 = utf8Encode(v0_0, realloc0, memory0);
      var len1 = utf8EncodedLen;
      var ptr2 = utf8Encode(v0_1, realloc0, memory0);
      var len2 = utf8EncodedLen;
      var ptr3 = utf8Encode(v0_2, realloc0, memory0);
      var len3 = utf8EncodedLen;
      var ptr4 = utf8Encode(v0_3, realloc0, memory0);
      var len4 = utf8EncodedLen;
      var ptr5 = utf8Encode(v0_4, realloc0, memory0);
      var len5 = utf8EncodedLen;
      var {only: v6_0, ignore: v6_1, identity: v6_2 } = arg1;
      var variant9 = v6_0;
      let variant9_0;
      let variant9_1;
      let variant9_2;
      if (variant9 === null || variant9=== undefined) {
        variant9_0 = 0;
        variant9_1 = 0;
        variant9_2 = 0;
      } else {
        const e = variant9;
        var vec8 = e;
        var len8 = vec8.length;
        var result8 = realloc0(0, 0, 4, len8 * 8);
        for (let i = 0; i < vec8.length; i++) {
          const e = vec8[i];
          const base = result8 + i * 8;var ptr7 = utf8Encode(e, realloc0, memory0);
          var len7 = utf8EncodedLen;
          dataView(memory0).setInt32(base + 4, len7, true);
          dataView(memory0).setInt32(base + 0, ptr7, true);
        }
        variant9_0 = 1;
        variant9_1 = result8;
        variant9_2 = len8;
      }
      var vec11 = v6_1;
      var len11 = vec11.length;
      var result11 = realloc0(0, 0, 4, len11 * 8);
      for (let i = 0; i < vec11.length; i++) {
        const e = vec11[i];
        const base = result11 + i * 8;var ptr10 = utf8Encode(e, realloc0, memory0);
        var len10 = utf8EncodedLen;
        dataView(memory0).setInt32(base + 4, len10, true);
        dataView(memory0).setInt32(base + 0, ptr10, true);
      }
      var val12 = v6_2;
      let enum12;
      switch (val12) {
        case 'step': {
          enum12 = 0;
          break;
        }
        case 'run': {
          enum12 = 1;
          break;
        }
        case 'scope': {
          enum12 = 2;
          break;
        }
        default: {
          if ((v6_2) instanceof Error) {
            console.error(v6_2);
          }
          
          throw new TypeError(`"${val12}" is not one of the cases of key-identity`);
        }
      }
      const ret = keys010Key(ptr1, len1, ptr2, len2, ptr3, len3, ptr4, len4, ptr5, len5, variant9_0, variant9_1, variant9_2, result11, len11, enum12);
      let variant21;
      switch (dataView(memory0).getUint8(ret + 0, true)) {
        case 0: {
          var ptr13 = dataView(memory0).getInt32(ret + 8, true);
          var len13 = dataView(memory0).getInt32(ret + 12, true);
          var result13 = utf8Decoder.decode(new Uint8Array(memory0.buffer, ptr13, len13));
          variant21= {
            tag: 'ok',
            val: result13
          };
          break;
        }
        case 1: {
          let enum14;
          switch (dataView(memory0).getUint8(ret + 8, true)) {
            case 0: {
              enum14 = 'invalid-args';
              break;
            }
            case 1: {
              enum14 = 'invalid-pointer';
              break;
            }
            case 2: {
              enum14 = 'missing-member';
              break;
            }
            case 3: {
              enum14 = 'pointer-into-array';
              break;
            }
            case 4: {
              enum14 = 'empty-field';
              break;
            }
            default: {
              throw new TypeError('invalid discriminant specified for KeyErrorKind');
            }
          }
          let variant16;
          switch (dataView(memory0).getUint8(ret + 12, true)) {
            case 0: {
              variant16 = undefined;
              break;
            }
            case 1: {
              var ptr15 = dataView(memory0).getInt32(ret + 16, true);
              var len15 = dataView(memory0).getInt32(ret + 20, true);
              var result15 = utf8Decoder.decode(new Uint8Array(memory0.buffer, ptr15, len15));
              variant16 = result15;
              break;
            }
            default: {
              throw new TypeError('invalid variant discriminant for option');
            }
          }
          let variant19;
          switch (dataView(memory0).getUint8(ret + 24, true)) {
            case 0: {
              variant19 = undefined;
              break;
            }
            case 1: {
              let enum17;
              switch (dataView(memory0).getUint8(ret + 32, true)) {
                case 0: {
                  enum17 = 'syntax';
                  break;
                }
                case 1: {
                  enum17 = 'invalid-utf8';
                  break;
                }
                case 2: {
                  enum17 = 'lone-surrogate';
                  break;
                }
                case 3: {
                  enum17 = 'duplicate-key';
                  break;
                }
                case 4: {
                  enum17 = 'number-overflow';
                  break;
                }
                case 5: {
                  enum17 = 'inexact-integer';
                  break;
                }
                case 6: {
                  enum17 = 'too-deep';
                  break;
                }
                case 7: {
                  enum17 = 'too-large';
                  break;
                }
                default: {
                  throw new TypeError('invalid discriminant specified for CanonErrorKind');
                }
              }
              var ptr18 = dataView(memory0).getInt32(ret + 56, true);
              var len18 = dataView(memory0).getInt32(ret + 60, true);
              var result18 = utf8Decoder.decode(new Uint8Array(memory0.buffer, ptr18, len18));
              variant19 = {
                kind: enum17,
                offset: BigInt.asUintN(64, dataView(memory0).getBigInt64(ret + 40, true)),
                line: dataView(memory0).getInt32(ret + 48, true) >>> 0,
                column: dataView(memory0).getInt32(ret + 52, true) >>> 0,
                message: result18,
              };
              break;
            }
            default: {
              throw new TypeError('invalid variant discriminant for option');
            }
          }
          var ptr20 = dataView(memory0).getInt32(ret + 64, true);
          var len20 = dataView(memory0).getInt32(ret + 68, true);
          var result20 = utf8Decoder.decode(new Uint8Array(memory0.buffer, ptr20, len20));
          variant21= {
            tag: 'err',
            val: {
              kind: enum14,
              at: variant16,
              canon: variant19,
              message: result20,
            }
          };
          break;
        }
        default: {
          throw new TypeError('invalid variant discriminant for expected');
        }
      }
      const retVal = variant21;
      postReturn2(ret);
      if (typeof retVal === 'object' && retVal.tag === 'err') {
        throw new ComponentError(retVal.val);
      }
      return retVal.val;
    }
    let keys010DeriveMany;
    
    function deriveMany(arg0, arg1) {
      var vec6 = arg0;
      var len6 = vec6.length;
      var result6 = realloc0(0, 0, 4, len6 * 40);
      for (let i = 0; i < vec6.length; i++) {
        const e = vec6[i];
        const base = result6 + i * 40;var {scope: v0_0, runId: v0_1, stepId: v0_2, tool: v0_3, argsJson: v0_4 } = e;
        var ptr1 = utf8Encode(v0_0, realloc0, memory0);
        var len1 = utf8EncodedLen;
        dataView(memory0).setInt32(base + 4, len1, true);
        dataView(memory0).setInt32(base + 0, ptr1, true);
        var ptr2 = utf8Encode(v0_1, realloc0, memory0);
        var len2 = utf8EncodedLen;
        dataView(memory0).setInt32(base + 12, len2, true);
        dataView(memory0).setInt32(base + 8, ptr2, true);
        var ptr3 = utf8Encode(v0_2, realloc0, memory0);
        var len3 = utf8EncodedLen;
        dataView(memory0).setInt32(base + 20, len3, true);
        dataView(memory0).setInt32(base + 16, ptr3, true);
        var ptr4 = utf8Encode(v0_3, realloc0, memory0);
        var len4 = utf8EncodedLen;
        dataView(memory0).setInt32(base + 28, len4, true);
        dataView(memory0).setInt32(base + 24, ptr4, true);
        var ptr5 = utf8Encode(v0_4, realloc0, memory0);
        var len5 = utf8EncodedLen;
        dataView(memory0).setInt32(base + 36, len5, true);
        dataView(memory0).setInt32(base + 32, ptr5, true);
      }
      var {only: v7_0, ignore: v7_1, identity: v7_2 } = arg1;
      var variant10 = v7_0;
      let variant10_0;
      let variant10_1;
      let variant10_2;
      if (variant10 === null || variant10=== undefined) {
        variant10_0 = 0;
        variant10_1 = 0;
        variant10_2 = 0;
      } else {
        const e = variant10;
        var vec9 = e;
        var len9 = vec9.length;
        var result9 = realloc0(0, 0, 4, len9 * 8);
        for (let i = 0; i < vec9.length; i++) {
          const e = vec9[i];
          const base = result9 + i * 8;var ptr8 = utf8Encode(e, realloc0, memory0);
          var len8 = utf8EncodedLen;
          dataView(memory0).setInt32(base + 4, len8, true);
          dataView(memory0).setInt32(base + 0, ptr8, true);
        }
        variant10_0 = 1;
        variant10_1 = result9;
        variant10_2 = len9;
      }
      var vec12 = v7_1;
      var len12 = vec12.length;
      var result12 = realloc0(0, 0, 4, len12 * 8);
      for (let i = 0; i < vec12.length; i++) {
        const e = vec12[i];
        const base = result12 + i * 8;var ptr11 = utf8Encode(e, realloc0, memory0);
        var len11 = utf8EncodedLen;
        dataView(memory0).setInt32(base + 4, len11, true);
        dataView(memory0).setInt32(base + 0, ptr11, true);
      }
      var val13 = v7_2;
      let enum13;
      switch (val13) {
        case 'step': {
          enum13 = 0;
          break;
        }
        case 'run': {
          enum13 = 1;
          break;
        }
        case 'scope': {
          enum13 = 2;
          break;
        }
        default: {
          if ((v7_2) instanceof Error) {
            console.error(v7_2);
          }
          
          throw new TypeError(`"${val13}" is not one of the cases of key-identity`);
        }
      }
      const ret = keys010DeriveMany(result6, len6, variant10_0, variant10_1, variant10_2, result12, len12, enum13);
      var len26 = dataView(memory0).getInt32(ret + 4, true);
      var base26 = dataView(memory0).getInt32(ret + 0, true);
      var result26 = [];
      for (let i = 0; i < len26; i++) {
        const base = base26 + i * 72;
        let variant25;
        switch (dataView(memory0).getUint8(base + 0, true)) {
          case 0: {
            var ptr14 = dataView(memory0).getInt32(base + 8, true);
            var len14 = dataView(memory0).getInt32(base + 12, true);
            var result14 = utf8Decoder.decode(new Uint8Array(memory0.buffer, ptr14, len14));
            var ptr15 = dataView(memory0).getInt32(base + 16, true);
            var len15 = dataView(memory0).getInt32(base + 20, true);
            var result15 = utf8Decoder.decode(new Uint8Array(memory0.buffer, ptr15, len15));
            var ptr16 = dataView(memory0).getInt32(base + 24, true);
            var len16 = dataView(memory0).getInt32(base + 28, true);
            var result16 = utf8Decoder.decode(new Uint8Array(memory0.buffer, ptr16, len16));
            var ptr17 = dataView(memory0).getInt32(base + 32, true);
            var len17 = dataView(memory0).getInt32(base + 36, true);
            var result17 = utf8Decoder.decode(new Uint8Array(memory0.buffer, ptr17, len17));
            variant25= {
              tag: 'ok',
              val: {
                key: result14,
                preimage: result15,
                fingerprint: result16,
                argsCanonical: result17,
              }
            };
            break;
          }
          case 1: {
            let enum18;
            switch (dataView(memory0).getUint8(base + 8, true)) {
              case 0: {
                enum18 = 'invalid-args';
                break;
              }
              case 1: {
                enum18 = 'invalid-pointer';
                break;
              }
              case 2: {
                enum18 = 'missing-member';
                break;
              }
              case 3: {
                enum18 = 'pointer-into-array';
                break;
              }
              case 4: {
                enum18 = 'empty-field';
                break;
              }
              default: {
                throw new TypeError('invalid discriminant specified for KeyErrorKind');
              }
            }
            let variant20;
            switch (dataView(memory0).getUint8(base + 12, true)) {
              case 0: {
                variant20 = undefined;
                break;
              }
              case 1: {
                var ptr19 = dataView(memory0).getInt32(base + 16, true);
                var len19 = dataView(memory0).getInt32(base + 20, true);
                var result19 = utf8Decoder.decode(new Uint8Array(memory0.buffer, ptr19, len19));
                variant20 = result19;
                break;
              }
              default: {
                throw new TypeError('invalid variant discriminant for option');
              }
            }
            let variant23;
            switch (dataView(memory0).getUint8(base + 24, true)) {
              case 0: {
                variant23 = undefined;
                break;
              }
              case 1: {
                let enum21;
                switch (dataView(memory0).getUint8(base + 32, true)) {
                  case 0: {
                    enum21 = 'syntax';
                    break;
                  }
                  case 1: {
                    enum21 = 'invalid-utf8';
                    break;
                  }
                  case 2: {
                    enum21 = 'lone-surrogate';
                    break;
                  }
                  case 3: {
                    enum21 = 'duplicate-key';
                    break;
                  }
                  case 4: {
                    enum21 = 'number-overflow';
                    break;
                  }
                  case 5: {
                    enum21 = 'inexact-integer';
                    break;
                  }
                  case 6: {
                    enum21 = 'too-deep';
                    break;
                  }
                  case 7: {
                    enum21 = 'too-large';
                    break;
                  }
                  default: {
                    throw new TypeError('invalid discriminant specified for CanonErrorKind');
                  }
                }
                var ptr22 = dataView(memory0).getInt32(base + 56, true);
                var len22 = dataView(memory0).getInt32(base + 60, true);
                var result22 = utf8Decoder.decode(new Uint8Array(memory0.buffer, ptr22, len22));
                variant23 = {
                  kind: enum21,
                  offset: BigInt.asUintN(64, dataView(memory0).getBigInt64(base + 40, true)),
                  line: dataView(memory0).getInt32(base + 48, true) >>> 0,
                  column: dataView(memory0).getInt32(base + 52, true) >>> 0,
                  message: result22,
                };
                break;
              }
              default: {
                throw new TypeError('invalid variant discriminant for option');
              }
            }
            var ptr24 = dataView(memory0).getInt32(base + 64, true);
            var len24 = dataView(memory0).getInt32(base + 68, true);
            var result24 = utf8Decoder.decode(new Uint8Array(memory0.buffer, ptr24, len24));
            variant25= {
              tag: 'err',
              val: {
                kind: enum18,
                at: variant20,
                canon: variant23,
                message: result24,
              }
            };
            break;
          }
          default: {
            throw new TypeError('invalid variant discriminant for expected');
          }
        }
        result26.push(variant25);
      }
      const retVal = result26;
      postReturn3(ret);
      return retVal;
    }
    let keys010DefaultSpec;
    
    function defaultSpec() {
      const ret = keys010DefaultSpec();
      let variant2;
      switch (dataView(memory0).getUint8(ret + 0, true)) {
        case 0: {
          variant2 = undefined;
          break;
        }
        case 1: {
          var len1 = dataView(memory0).getInt32(ret + 8, true);
          var base1 = dataView(memory0).getInt32(ret + 4, true);
          var result1 = [];
          for (let i = 0; i < len1; i++) {
            const base = base1 + i * 8;
            var ptr0 = dataView(memory0).getInt32(base + 0, true);
            var len0 = dataView(memory0).getInt32(base + 4, true);
            var result0 = utf8Decoder.decode(new Uint8Array(memory0.buffer, ptr0, len0));
            result1.push(result0);
          }
          variant2 = result1;
          break;
        }
        default: {
          throw new TypeError('invalid variant discriminant for option');
        }
      }
      var len4 = dataView(memory0).getInt32(ret + 16, true);
      var base4 = dataView(memory0).getInt32(ret + 12, true);
      var result4 = [];
      for (let i = 0; i < len4; i++) {
        const base = base4 + i * 8;
        var ptr3 = dataView(memory0).getInt32(base + 0, true);
        var len3 = dataView(memory0).getInt32(base + 4, true);
        var result3 = utf8Decoder.decode(new Uint8Array(memory0.buffer, ptr3, len3));
        result4.push(result3);
      }
      let enum5;
      switch (dataView(memory0).getUint8(ret + 20, true)) {
        case 0: {
          enum5 = 'step';
          break;
        }
        case 1: {
          enum5 = 'run';
          break;
        }
        case 2: {
          enum5 = 'scope';
          break;
        }
        default: {
          throw new TypeError('invalid discriminant specified for KeyIdentity');
        }
      }
      const retVal = {
        only: variant2,
        ignore: result4,
        identity: enum5,
      };
      postReturn4(ret);
      return retVal;
    }
    let keys010ArgsRefused;
    
    function argsRefused(arg0, arg1) {
      var ptr0 = realloc0(0, 0, 8, 104);
      var variant10 = arg0;
      if (variant10 === null || variant10=== undefined) {
        dataView(memory0).setInt8(ptr0 + 0, 0, true);
      } else {
        const e = variant10;
        dataView(memory0).setInt8(ptr0 + 0, 1, true);
        var {kind: v1_0, at: v1_1, canon: v1_2, message: v1_3 } = e;
        var val2 = v1_0;
        let enum2;
        switch (val2) {
          case 'invalid-args': {
            enum2 = 0;
            break;
          }
          case 'invalid-pointer': {
            enum2 = 1;
            break;
          }
          case 'missing-member': {
            enum2 = 2;
            break;
          }
          case 'pointer-into-array': {
            enum2 = 3;
            break;
          }
          case 'empty-field': {
            enum2 = 4;
            break;
          }
          default: {
            if ((v1_0) instanceof Error) {
              console.error(v1_0);
            }
            
            throw new TypeError(`"${val2}" is not one of the cases of key-error-kind`);
          }
        }
        dataView(memory0).setInt8(ptr0 + 8, enum2, true);
        var variant4 = v1_1;
        if (variant4 === null || variant4=== undefined) {
          dataView(memory0).setInt8(ptr0 + 12, 0, true);
        } else {
          const e = variant4;
          dataView(memory0).setInt8(ptr0 + 12, 1, true);
          var ptr3 = utf8Encode(e, realloc0, memory0);
          var len3 = utf8EncodedLen;
          dataView(memory0).setInt32(ptr0 + 20, len3, true);
          dataView(memory0).setInt32(ptr0 + 16, ptr3, true);
        }
        var variant8 = v1_2;
        if (variant8 === null || variant8=== undefined) {
          dataView(memory0).setInt8(ptr0 + 24, 0, true);
        } else {
          const e = variant8;
          dataView(memory0).setInt8(ptr0 + 24, 1, true);
          var {kind: v5_0, offset: v5_1, line: v5_2, column: v5_3, message: v5_4 } = e;
          var val6 = v5_0;
          let enum6;
          switch (val6) {
            case 'syntax': {
              enum6 = 0;
              break;
            }
            case 'invalid-utf8': {
              enum6 = 1;
              break;
            }
            case 'lone-surrogate': {
              enum6 = 2;
              break;
            }
            case 'duplicate-key': {
              enum6 = 3;
              break;
            }
            case 'number-overflow': {
              enum6 = 4;
              break;
            }
            case 'inexact-integer': {
              enum6 = 5;
              break;
            }
            case 'too-deep': {
              enum6 = 6;
              break;
            }
            case 'too-large': {
              enum6 = 7;
              break;
            }
            default: {
              if ((v5_0) instanceof Error) {
                console.error(v5_0);
              }
              
              throw new TypeError(`"${val6}" is not one of the cases of canon-error-kind`);
            }
          }
          dataView(memory0).setInt8(ptr0 + 32, enum6, true);
          dataView(memory0).setBigInt64(ptr0 + 40, toUint64(v5_1), true);
          dataView(memory0).setInt32(ptr0 + 48, toUint32(v5_2), true);
          dataView(memory0).setInt32(ptr0 + 52, toUint32(v5_3), true);
          var ptr7 = utf8Encode(v5_4, realloc0, memory0);
          var len7 = utf8EncodedLen;
          dataView(memory0).setInt32(ptr0 + 60, len7, true);
          dataView(memory0).setInt32(ptr0 + 56, ptr7, true);
        }
        var ptr9 = utf8Encode(v1_3, realloc0, memory0);
        var len9 = utf8EncodedLen;
        dataView(memory0).setInt32(ptr0 + 68, len9, true);
        dataView(memory0).setInt32(ptr0 + 64, ptr9, true);
      }
      var {kind: v11_0, offset: v11_1, line: v11_2, column: v11_3, message: v11_4 } = arg1;
      var val12 = v11_0;
      let enum12;
      switch (val12) {
        case 'syntax': {
          enum12 = 0;
          break;
        }
        case 'invalid-utf8': {
          enum12 = 1;
          break;
        }
        case 'lone-surrogate': {
          enum12 = 2;
          break;
        }
        case 'duplicate-key': {
          enum12 = 3;
          break;
        }
        case 'number-overflow': {
          enum12 = 4;
          break;
        }
        case 'inexact-integer': {
          enum12 = 5;
          break;
        }
        case 'too-deep': {
          enum12 = 6;
          break;
        }
        case 'too-large': {
          enum12 = 7;
          break;
        }
        default: {
          if ((v11_0) instanceof Error) {
            console.error(v11_0);
          }
          
          throw new TypeError(`"${val12}" is not one of the cases of canon-error-kind`);
        }
      }
      dataView(memory0).setInt8(ptr0 + 72, enum12, true);
      dataView(memory0).setBigInt64(ptr0 + 80, toUint64(v11_1), true);
      dataView(memory0).setInt32(ptr0 + 88, toUint32(v11_2), true);
      dataView(memory0).setInt32(ptr0 + 92, toUint32(v11_3), true);
      var ptr13 = utf8Encode(v11_4, realloc0, memory0);
      var len13 = utf8EncodedLen;
      dataView(memory0).setInt32(ptr0 + 100, len13, true);
      dataView(memory0).setInt32(ptr0 + 96, ptr13, true);
      const ret = keys010ArgsRefused(ptr0);
      let enum14;
      switch (dataView(memory0).getUint8(ret + 0, true)) {
        case 0: {
          enum14 = 'invalid-args';
          break;
        }
        case 1: {
          enum14 = 'invalid-pointer';
          break;
        }
        case 2: {
          enum14 = 'missing-member';
          break;
        }
        case 3: {
          enum14 = 'pointer-into-array';
          break;
        }
        case 4: {
          enum14 = 'empty-field';
          break;
        }
        default: {
          throw new TypeError('invalid discriminant specified for KeyErrorKind');
        }
      }
      let variant16;
      switch (dataView(memory0).getUint8(ret + 4, true)) {
        case 0: {
          variant16 = undefined;
          break;
        }
        case 1: {
          var ptr15 = dataView(memory0).getInt32(ret + 8, true);
          var len15 = dataView(memory0).getInt32(ret + 12, true);
          var result15 = utf8Decoder.decode(new Uint8Array(memory0.buffer, ptr15, len15));
          variant16 = result15;
          break;
        }
        default: {
          throw new TypeError('invalid variant discriminant for option');
        }
      }
      let variant19;
      switch (dataView(memory0).getUint8(ret + 16, true)) {
        case 0: {
          variant19 = undefined;
          break;
        }
        case 1: {
          let enum17;
          switch (dataView(memory0).getUint8(ret + 24, true)) {
            case 0: {
              enum17 = 'syntax';
              break;
            }
            case 1: {
              enum17 = 'invalid-utf8';
              break;
            }
            case 2: {
              enum17 = 'lone-surrogate';
              break;
            }
            case 3: {
              enum17 = 'duplicate-key';
              break;
            }
            case 4: {
              enum17 = 'number-overflow';
              break;
            }
            case 5: {
              enum17 = 'inexact-integer';
              break;
            }
            case 6: {
              enum17 = 'too-deep';
              break;
            }
            case 7: {
              enum17 = 'too-large';
              break;
            }
            default: {
              throw new TypeError('invalid discriminant specified for CanonErrorKind');
            }
          }
          var ptr18 = dataView(memory0).getInt32(ret + 48, true);
          var len18 = dataView(memory0).getInt32(ret + 52, true);
          var result18 = utf8Decoder.decode(new Uint8Array(memory0.buffer, ptr18, len18));
          variant19 = {
            kind: enum17,
            offset: BigInt.asUintN(64, dataView(memory0).getBigInt64(ret + 32, true)),
            line: dataView(memory0).getInt32(ret + 40, true) >>> 0,
            column: dataView(memory0).getInt32(ret + 44, true) >>> 0,
            message: result18,
          };
          break;
        }
        default: {
          throw new TypeError('invalid variant discriminant for option');
        }
      }
      var ptr20 = dataView(memory0).getInt32(ret + 56, true);
      var len20 = dataView(memory0).getInt32(ret + 60, true);
      var result20 = utf8Decoder.decode(new Uint8Array(memory0.buffer, ptr20, len20));
      const retVal = {
        kind: enum14,
        at: variant16,
        canon: variant19,
        message: result20,
      };
      postReturn5(ret);
      return retVal;
    }
    let keys010Explain;
    
    function explain(arg0, arg1, arg2) {
      var ptr0 = realloc0(0, 0, 4, 104);
      var {scope: v1_0, runId: v1_1, stepId: v1_2, tool: v1_3, argsJson: v1_4 } = arg0;
      var ptr2 = utf8Encode(v1_0, realloc0, memory0);
      var len2 = utf8EncodedLen;
      dataView(memory0).setInt32(ptr0 + 4, len2, true);
      dataView(memory0).setInt32(ptr0 + 0, ptr2, true);
      var ptr3 = utf8Encode(v1_1, realloc0, memory0);
      var len3 = utf8EncodedLen;
      dataView(memory0).setInt32(ptr0 + 12, len3, true);
      dataView(memory0).setInt32(ptr0 + 8, ptr3, true);
      var ptr4 = utf8Encode(v1_2, realloc0, memory0);
      var len4 = utf8EncodedLen;
      dataView(memory0).setInt32(ptr0 + 20, len4, true);
      dataView(memory0).setInt32(ptr0 + 16, ptr4, true);
      var ptr5 = utf8Encode(v1_3, realloc0, memory0);
      var len5 = utf8EncodedLen;
      dataView(memory0).setInt32(ptr0 + 28, len5, true);
      dataView(memory0).setInt32(ptr0 + 24, ptr5, true);
      var ptr6 = utf8Encode(v1_4, realloc0, memory0);
      var len6 = utf8EncodedLen;
      dataView(memory0).setInt32(ptr0 + 36, len6, true);
      dataView(memory0).setInt32(ptr0 + 32, ptr6, true);
      var {scope: v7_0, runId: v7_1, stepId: v7_2, tool: v7_3, argsJson: v7_4 } = arg1;
      var ptr8 = utf8Encode(v7_0, realloc0, memory0);
      var len8 = utf8EncodedLen;
      dataView(memory0).setInt32(ptr0 + 44, len8, true);
      dataView(memory0).setInt32(ptr0 + 40, ptr8, true);
      var ptr9 = utf8Encode(v7_1, realloc0, memory0);
      var len9 = utf8EncodedLen;
      dataView(memory0).setInt32(ptr0 + 52, len9, true);
      dataView(memory0).setInt32(ptr0 + 48, ptr9, true);
      var ptr10 = utf8Encode(v7_2, realloc0, memory0);
      var len10 = utf8EncodedLen;
      dataView(memory0).setInt32(ptr0 + 60, len10, true);
      dataView(memory0).setInt32(ptr0 + 56, ptr10, true);
      var ptr11 = utf8Encode(v7_3, realloc0, memory0);
      var len11 = utf8EncodedLen;
      dataView(memory0).setInt32(ptr0 + 68, len11, true);
      dataView(memory0).setInt32(ptr0 + 64, ptr11, true);
      var ptr12 = utf8Encode(v7_4, realloc0, memory0);
      var len12 = utf8EncodedLen;
      dataView(memory0).setInt32(ptr0 + 76, len12, true);
      dataView(memory0).setInt32(ptr0 + 72, ptr12, true);
      var {only: v13_0, ignore: v13_1, identity: v13_2 } = arg2;
      var variant16 = v13_0;
      if (variant16 === null || variant16=== undefined) {
        dataView(memory0).setInt8(ptr0 + 80, 0, true);
      } else {
        const e = variant16;
        dataView(memory0).setInt8(ptr0 + 80, 1, true);
        var vec15 = e;
        var len15 = vec15.length;
        var result15 = realloc0(0, 0, 4, len15 * 8);
        for (let i = 0; i < vec15.length; i++) {
          const e = vec15[i];
          const base = result15 + i * 8;var ptr14 = utf8Encode(e, realloc0, memory0);
          var len14 = utf8EncodedLen;
          dataView(memory0).setInt32(base + 4, len14, true);
          dataView(memory0).setInt32(base + 0, ptr14, true);
        }
        dataView(memory0).setInt32(ptr0 + 88, len15, true);
        dataView(memory0).setInt32(ptr0 + 84, result15, true);
      }
      var vec18 = v13_1;
      var len18 = vec18.length;
      var result18 = realloc0(0, 0, 4, len18 * 8);
      for (let i = 0; i < vec18.length; i++) {
        const e = vec18[i];
        const base = result18 + i * 8;var ptr17 = utf8Encode(e, realloc0, memory0);
        var len17 = utf8EncodedLen;
        dataView(memory0).setInt32(base + 4, len17, true);
        dataView(memory0).setInt32(base + 0, ptr17, true);
      }
      dataView(memory0).setInt32(ptr0 + 96, len18, true);
      dataView(memory0).setInt32(ptr0 + 92, result18, true);
      var val19 = v13_2;
      let enum19;
      switch (val19) {
        case 'step': {
          enum19 = 0;
          break;
        }
        case 'run': {
          enum19 = 1;
          break;
        }
        case 'scope': {
          enum19 = 2;
          break;
        }
        default: {
          if ((v13_2) instanceof Error) {
            console.error(v13_2);
          }
          
          throw new TypeError(`"${val19}" is not one of the cases of key-identity`);
        }
      }
      dataView(memory0).setInt8(ptr0 + 100, enum19, true);
      const ret = keys010Explain(ptr0);
      let variant45;
      switch (dataView(memory0).getUint8(ret + 0, true)) {
        case 0: {
          let enum20;
          switch (dataView(memory0).getUint8(ret + 8, true)) {
            case 0: {
              enum20 = 'same-intent';
              break;
            }
            case 1: {
              enum20 = 'conflict';
              break;
            }
            case 2: {
              enum20 = 'different-keys';
              break;
            }
            default: {
              throw new TypeError('invalid discriminant specified for Verdict');
            }
          }
          var ptr21 = dataView(memory0).getInt32(ret + 12, true);
          var len21 = dataView(memory0).getInt32(ret + 16, true);
          var result21 = utf8Decoder.decode(new Uint8Array(memory0.buffer, ptr21, len21));
          var ptr22 = dataView(memory0).getInt32(ret + 20, true);
          var len22 = dataView(memory0).getInt32(ret + 24, true);
          var result22 = utf8Decoder.decode(new Uint8Array(memory0.buffer, ptr22, len22));
          var ptr23 = dataView(memory0).getInt32(ret + 28, true);
          var len23 = dataView(memory0).getInt32(ret + 32, true);
          var result23 = utf8Decoder.decode(new Uint8Array(memory0.buffer, ptr23, len23));
          var ptr24 = dataView(memory0).getInt32(ret + 36, true);
          var len24 = dataView(memory0).getInt32(ret + 40, true);
          var result24 = utf8Decoder.decode(new Uint8Array(memory0.buffer, ptr24, len24));
          var ptr25 = dataView(memory0).getInt32(ret + 44, true);
          var len25 = dataView(memory0).getInt32(ret + 48, true);
          var result25 = utf8Decoder.decode(new Uint8Array(memory0.buffer, ptr25, len25));
          var ptr26 = dataView(memory0).getInt32(ret + 52, true);
          var len26 = dataView(memory0).getInt32(ret + 56, true);
          var result26 = utf8Decoder.decode(new Uint8Array(memory0.buffer, ptr26, len26));
          var ptr27 = dataView(memory0).getInt32(ret + 60, true);
          var len27 = dataView(memory0).getInt32(ret + 64, true);
          var result27 = utf8Decoder.decode(new Uint8Array(memory0.buffer, ptr27, len27));
          var ptr28 = dataView(memory0).getInt32(ret + 68, true);
          var len28 = dataView(memory0).getInt32(ret + 72, true);
          var result28 = utf8Decoder.decode(new Uint8Array(memory0.buffer, ptr28, len28));
          var len37 = dataView(memory0).getInt32(ret + 80, true);
          var base37 = dataView(memory0).getInt32(ret + 76, true);
          var result37 = [];
          for (let i = 0; i < len37; i++) {
            const base = base37 + i * 44;
            let enum29;
            switch (dataView(memory0).getUint8(base + 0, true)) {
              case 0: {
                enum29 = 'scope';
                break;
              }
              case 1: {
                enum29 = 'tool';
                break;
              }
              case 2: {
                enum29 = 'run-id';
                break;
              }
              case 3: {
                enum29 = 'step-id';
                break;
              }
              case 4: {
                enum29 = 'args';
                break;
              }
              default: {
                throw new TypeError('invalid discriminant specified for IntentPart');
              }
            }
            let variant31;
            switch (dataView(memory0).getUint8(base + 4, true)) {
              case 0: {
                variant31 = undefined;
                break;
              }
              case 1: {
                var ptr30 = dataView(memory0).getInt32(base + 8, true);
                var len30 = dataView(memory0).getInt32(base + 12, true);
                var result30 = utf8Decoder.decode(new Uint8Array(memory0.buffer, ptr30, len30));
                variant31 = result30;
                break;
              }
              default: {
                throw new TypeError('invalid variant discriminant for option');
              }
            }
            let variant33;
            switch (dataView(memory0).getUint8(base + 16, true)) {
              case 0: {
                variant33 = undefined;
                break;
              }
              case 1: {
                var ptr32 = dataView(memory0).getInt32(base + 20, true);
                var len32 = dataView(memory0).getInt32(base + 24, true);
                var result32 = utf8Decoder.decode(new Uint8Array(memory0.buffer, ptr32, len32));
                variant33 = result32;
                break;
              }
              default: {
                throw new TypeError('invalid variant discriminant for option');
              }
            }
            let variant35;
            switch (dataView(memory0).getUint8(base + 28, true)) {
              case 0: {
                variant35 = undefined;
                break;
              }
              case 1: {
                var ptr34 = dataView(memory0).getInt32(base + 32, true);
                var len34 = dataView(memory0).getInt32(base + 36, true);
                var result34 = utf8Decoder.decode(new Uint8Array(memory0.buffer, ptr34, len34));
                variant35 = result34;
                break;
              }
              default: {
                throw new TypeError('invalid variant discriminant for option');
              }
            }
            let enum36;
            switch (dataView(memory0).getUint8(base + 40, true)) {
              case 0: {
                enum36 = 'key';
                break;
              }
              case 1: {
                enum36 = 'fingerprint';
                break;
              }
              case 2: {
                enum36 = 'none';
                break;
              }
              default: {
                throw new TypeError('invalid discriminant specified for DifferenceEffect');
              }
            }
            result37.push({
              part: enum29,
              pointer: variant31,
              a: variant33,
              b: variant35,
              effect: enum36,
            });
          }
          variant45= {
            tag: 'ok',
            val: {
              verdict: enum20,
              keyA: {
                key: result21,
                preimage: result22,
                fingerprint: result23,
                argsCanonical: result24,
              },
              keyB: {
                key: result25,
                preimage: result26,
                fingerprint: result27,
                argsCanonical: result28,
              },
              differences: result37,
            }
          };
          break;
        }
        case 1: {
          let enum38;
          switch (dataView(memory0).getUint8(ret + 8, true)) {
            case 0: {
              enum38 = 'invalid-args';
              break;
            }
            case 1: {
              enum38 = 'invalid-pointer';
              break;
            }
            case 2: {
              enum38 = 'missing-member';
              break;
            }
            case 3: {
              enum38 = 'pointer-into-array';
              break;
            }
            case 4: {
              enum38 = 'empty-field';
              break;
            }
            default: {
              throw new TypeError('invalid discriminant specified for KeyErrorKind');
            }
          }
          let variant40;
          switch (dataView(memory0).getUint8(ret + 12, true)) {
            case 0: {
              variant40 = undefined;
              break;
            }
            case 1: {
              var ptr39 = dataView(memory0).getInt32(ret + 16, true);
              var len39 = dataView(memory0).getInt32(ret + 20, true);
              var result39 = utf8Decoder.decode(new Uint8Array(memory0.buffer, ptr39, len39));
              variant40 = result39;
              break;
            }
            default: {
              throw new TypeError('invalid variant discriminant for option');
            }
          }
          let variant43;
          switch (dataView(memory0).getUint8(ret + 24, true)) {
            case 0: {
              variant43 = undefined;
              break;
            }
            case 1: {
              let enum41;
              switch (dataView(memory0).getUint8(ret + 32, true)) {
                case 0: {
                  enum41 = 'syntax';
                  break;
                }
                case 1: {
                  enum41 = 'invalid-utf8';
                  break;
                }
                case 2: {
                  enum41 = 'lone-surrogate';
                  break;
                }
                case 3: {
                  enum41 = 'duplicate-key';
                  break;
                }
                case 4: {
                  enum41 = 'number-overflow';
                  break;
                }
                case 5: {
                  enum41 = 'inexact-integer';
                  break;
                }
                case 6: {
                  enum41 = 'too-deep';
                  break;
                }
                case 7: {
                  enum41 = 'too-large';
                  break;
                }
                default: {
                  throw new TypeError('invalid discriminant specified for CanonErrorKind');
                }
              }
              var ptr42 = dataView(memory0).getInt32(ret + 56, true);
              var len42 = dataView(memory0).getInt32(ret + 60, true);
              var result42 = utf8Decoder.decode(new Uint8Array(memory0.buffer, ptr42, len42));
              variant43 = {
                kind: enum41,
                offset: BigInt.asUintN(64, dataView(memory0).getBigInt64(ret + 40, true)),
                line: dataView(memory0).getInt32(ret + 48, true) >>> 0,
                column: dataView(memory0).getInt32(ret + 52, true) >>> 0,
                message: result42,
              };
              break;
            }
            default: {
              throw new TypeError('invalid variant discriminant for option');
            }
          }
          var ptr44 = dataView(memory0).getInt32(ret + 64, true);
          var len44 = dataView(memory0).getInt32(ret + 68, true);
          var result44 = utf8Decoder.decode(new Uint8Array(memory0.buffer, ptr44, len44));
          variant45= {
            tag: 'err',
            val: {
              kind: enum38,
              at: variant40,
              canon: variant43,
              message: result44,
            }
          };
          break;
        }
        default: {
          throw new TypeError('invalid variant discriminant for expected');
        }
      }
      const retVal = variant45;
      postReturn6(ret);
      if (typeof retVal === 'object' && retVal.tag === 'err') {
        throw new ComponentError(retVal.val);
      }
      return retVal.val;
    }
    let policy010Classify;
    
    function classify(arg0) {
      var {readOnlyHint: v0_0, destructiveHint: v0_1, idempotentHint: v0_2, openWorldHint: v0_3 } = arg0;
      var variant1 = v0_0;
      let variant1_0;
      let variant1_1;
      if (variant1 === null || variant1=== undefined) {
        variant1_0 = 0;
        variant1_1 = 0;
      } else {
        const e = variant1;
        variant1_0 = 1;
        variant1_1 = e ? 1 : 0;
      }
      var variant2 = v0_1;
      let variant2_0;
      let variant2_1;
      if (variant2 === null || variant2=== undefined) {
        variant2_0 = 0;
        variant2_1 = 0;
      } else {
        const e = variant2;
        variant2_0 = 1;
        variant2_1 = e ? 1 : 0;
      }
      var variant3 = v0_2;
      let variant3_0;
      let variant3_1;
      if (variant3 === null || variant3=== undefined) {
        variant3_0 = 0;
        variant3_1 = 0;
      } else {
        const e = variant3;
        variant3_0 = 1;
        variant3_1 = e ? 1 : 0;
      }
      var variant4 = v0_3;
      let variant4_0;
      let variant4_1;
      if (variant4 === null || variant4=== undefined) {
        variant4_0 = 0;
        variant4_1 = 0;
      } else {
        const e = variant4;
        variant4_0 = 1;
        variant4_1 = e ? 1 : 0;
      }
      const ret = policy010Classify(variant1_0, variant1_1, variant2_0, variant2_1, variant3_0, variant3_1, variant4_0, variant4_1);
      let enum5;
      switch (ret) {
        case 0: {
          enum5 = 'read-only';
          break;
        }
        case 1: {
          enum5 = 'overwriting-write';
          break;
        }
        case 2: {
          enum5 = 'accumulating-write';
          break;
        }
        case 3: {
          enum5 = 'irreversible-external';
          break;
        }
        default: {
          throw new TypeError('invalid discriminant specified for EffectClass');
        }
      }
      return enum5;
    }
    let policy010DefaultPolicy;
    
    function defaultPolicy(arg0) {
      var val0 = arg0;
      let enum0;
      switch (val0) {
        case 'read-only': {
          enum0 = 0;
          break;
        }
        case 'overwriting-write': {
          enum0 = 1;
          break;
        }
        case 'accumulating-write': {
          enum0 = 2;
          break;
        }
        case 'irreversible-external': {
          enum0 = 3;
          break;
        }
        default: {
          if ((arg0) instanceof Error) {
            console.error(arg0);
          }
          
          throw new TypeError(`"${val0}" is not one of the cases of effect-class`);
        }
      }
      const ret = policy010DefaultPolicy(enum0);
      let enum1;
      switch (dataView(memory0).getUint8(ret + 0, true)) {
        case 0: {
          enum1 = 'read-only';
          break;
        }
        case 1: {
          enum1 = 'overwriting-write';
          break;
        }
        case 2: {
          enum1 = 'accumulating-write';
          break;
        }
        case 3: {
          enum1 = 'irreversible-external';
          break;
        }
        default: {
          throw new TypeError('invalid discriminant specified for EffectClass');
        }
      }
      let variant8;
      switch (dataView(memory0).getUint8(ret + 4, true)) {
        case 0: {
          variant8 = undefined;
          break;
        }
        case 1: {
          let variant4;
          switch (dataView(memory0).getUint8(ret + 8, true)) {
            case 0: {
              variant4 = undefined;
              break;
            }
            case 1: {
              var len3 = dataView(memory0).getInt32(ret + 16, true);
              var base3 = dataView(memory0).getInt32(ret + 12, true);
              var result3 = [];
              for (let i = 0; i < len3; i++) {
                const base = base3 + i * 8;
                var ptr2 = dataView(memory0).getInt32(base + 0, true);
                var len2 = dataView(memory0).getInt32(base + 4, true);
                var result2 = utf8Decoder.decode(new Uint8Array(memory0.buffer, ptr2, len2));
                result3.push(result2);
              }
              variant4 = result3;
              break;
            }
            default: {
              throw new TypeError('invalid variant discriminant for option');
            }
          }
          var len6 = dataView(memory0).getInt32(ret + 24, true);
          var base6 = dataView(memory0).getInt32(ret + 20, true);
          var result6 = [];
          for (let i = 0; i < len6; i++) {
            const base = base6 + i * 8;
            var ptr5 = dataView(memory0).getInt32(base + 0, true);
            var len5 = dataView(memory0).getInt32(base + 4, true);
            var result5 = utf8Decoder.decode(new Uint8Array(memory0.buffer, ptr5, len5));
            result6.push(result5);
          }
          let enum7;
          switch (dataView(memory0).getUint8(ret + 28, true)) {
            case 0: {
              enum7 = 'step';
              break;
            }
            case 1: {
              enum7 = 'run';
              break;
            }
            case 2: {
              enum7 = 'scope';
              break;
            }
            default: {
              throw new TypeError('invalid discriminant specified for KeyIdentity');
            }
          }
          variant8 = {
            only: variant4,
            ignore: result6,
            identity: enum7,
          };
          break;
        }
        default: {
          throw new TypeError('invalid variant discriminant for option');
        }
      }
      let variant10;
      switch (dataView(memory0).getUint8(ret + 32, true)) {
        case 0: {
          variant10= {
            tag: 'none',
          };
          break;
        }
        case 1: {
          variant10= {
            tag: 'provider-idempotent',
          };
          break;
        }
        case 2: {
          var ptr9 = dataView(memory0).getInt32(ret + 36, true);
          var len9 = dataView(memory0).getInt32(ret + 40, true);
          var result9 = utf8Decoder.decode(new Uint8Array(memory0.buffer, ptr9, len9));
          variant10= {
            tag: 'lookup',
            val: result9
          };
          break;
        }
        case 3: {
          variant10= {
            tag: 'manual',
          };
          break;
        }
        default: {
          throw new TypeError('invalid variant discriminant for ReconcilePath');
        }
      }
      let variant13;
      switch (dataView(memory0).getUint8(ret + 88, true)) {
        case 0: {
          variant13 = undefined;
          break;
        }
        case 1: {
          let variant12;
          switch (dataView(memory0).getUint8(ret + 96, true)) {
            case 0: {
              variant12 = undefined;
              break;
            }
            case 1: {
              var ptr11 = dataView(memory0).getInt32(ret + 100, true);
              var len11 = dataView(memory0).getInt32(ret + 104, true);
              var result11 = utf8Decoder.decode(new Uint8Array(memory0.buffer, ptr11, len11));
              variant12 = result11;
              break;
            }
            default: {
              throw new TypeError('invalid variant discriminant for option');
            }
          }
          variant13 = {
            when: variant12,
            expiresAfterMs: BigInt.asUintN(64, dataView(memory0).getBigInt64(ret + 112, true)),
          };
          break;
        }
        default: {
          throw new TypeError('invalid variant discriminant for option');
        }
      }
      const retVal = {
        class: enum1,
        key: variant8,
        reconcile: variant10,
        leaseMs: BigInt.asUintN(64, dataView(memory0).getBigInt64(ret + 48, true)),
        maxCallMs: BigInt.asUintN(64, dataView(memory0).getBigInt64(ret + 56, true)),
        reconcileAfterMs: BigInt.asUintN(64, dataView(memory0).getBigInt64(ret + 64, true)),
        escalateAfterMs: BigInt.asUintN(64, dataView(memory0).getBigInt64(ret + 72, true)),
        retentionMs: BigInt.asUintN(64, dataView(memory0).getBigInt64(ret + 80, true)),
        approval: variant13,
      };
      postReturn7(ret);
      return retVal;
    }
    let policy010ParsePolicy;
    
    function parsePolicy(arg0) {
      var ptr0 = utf8Encode(arg0, realloc0, memory0);
      var len0 = utf8EncodedLen;
      const ret = policy010ParsePolicy(ptr0, len0);
      let variant16;
      switch (dataView(memory0).getUint8(ret + 0, true)) {
        case 0: {
          let enum1;
          switch (dataView(memory0).getUint8(ret + 8, true)) {
            case 0: {
              enum1 = 'read-only';
              break;
            }
            case 1: {
              enum1 = 'overwriting-write';
              break;
            }
            case 2: {
              enum1 = 'accumulating-write';
              break;
            }
            case 3: {
              enum1 = 'irreversible-external';
              break;
            }
            default: {
              throw new TypeError('invalid discriminant specified for EffectClass');
            }
          }
          let variant8;
          switch (dataView(memory0).getUint8(ret + 12, true)) {
            case 0: {
              variant8 = undefined;
              break;
            }
            case 1: {
              let variant4;
              switch (dataView(memory0).getUint8(ret + 16, true)) {
                case 0: {
                  variant4 = undefined;
                  break;
                }
                case 1: {
                  var len3 = dataView(memory0).getInt32(ret + 24, true);
                  var base3 = dataView(memory0).getInt32(ret + 20, true);
                  var result3 = [];
                  for (let i = 0; i < len3; i++) {
                    const base = base3 + i * 8;
                    var ptr2 = dataView(memory0).getInt32(base + 0, true);
                    var len2 = dataView(memory0).getInt32(base + 4, true);
                    var result2 = utf8Decoder.decode(new Uint8Array(memory0.buffer, ptr2, len2));
                    result3.push(result2);
                  }
                  variant4 = result3;
                  break;
                }
                default: {
                  throw new TypeError('invalid variant discriminant for option');
                }
              }
              var len6 = dataView(memory0).getInt32(ret + 32, true);
              var base6 = dataView(memory0).getInt32(ret + 28, true);
              var result6 = [];
              for (let i = 0; i < len6; i++) {
                const base = base6 + i * 8;
                var ptr5 = dataView(memory0).getInt32(base + 0, true);
                var len5 = dataView(memory0).getInt32(base + 4, true);
                var result5 = utf8Decoder.decode(new Uint8Array(memory0.buffer, ptr5, len5));
                result6.push(result5);
              }
              let enum7;
              switch (dataView(memory0).getUint8(ret + 36, true)) {
                case 0: {
                  enum7 = 'step';
                  break;
                }
                case 1: {
                  enum7 = 'run';
                  break;
                }
                case 2: {
                  enum7 = 'scope';
                  break;
                }
                default: {
                  throw new TypeError('invalid discriminant specified for KeyIdentity');
                }
              }
              variant8 = {
                only: variant4,
                ignore: result6,
                identity: enum7,
              };
              break;
            }
            default: {
              throw new TypeError('invalid variant discriminant for option');
            }
          }
          let variant10;
          switch (dataView(memory0).getUint8(ret + 40, true)) {
            case 0: {
              variant10= {
                tag: 'none',
              };
              break;
            }
            case 1: {
              variant10= {
                tag: 'provider-idempotent',
              };
              break;
            }
            case 2: {
              var ptr9 = dataView(memory0).getInt32(ret + 44, true);
              var len9 = dataView(memory0).getInt32(ret + 48, true);
              var result9 = utf8Decoder.decode(new Uint8Array(memory0.buffer, ptr9, len9));
              variant10= {
                tag: 'lookup',
                val: result9
              };
              break;
            }
            case 3: {
              variant10= {
                tag: 'manual',
              };
              break;
            }
            default: {
              throw new TypeError('invalid variant discriminant for ReconcilePath');
            }
          }
          let variant13;
          switch (dataView(memory0).getUint8(ret + 96, true)) {
            case 0: {
              variant13 = undefined;
              break;
            }
            case 1: {
              let variant12;
              switch (dataView(memory0).getUint8(ret + 104, true)) {
                case 0: {
                  variant12 = undefined;
                  break;
                }
                case 1: {
                  var ptr11 = dataView(memory0).getInt32(ret + 108, true);
                  var len11 = dataView(memory0).getInt32(ret + 112, true);
                  var result11 = utf8Decoder.decode(new Uint8Array(memory0.buffer, ptr11, len11));
                  variant12 = result11;
                  break;
                }
                default: {
                  throw new TypeError('invalid variant discriminant for option');
                }
              }
              variant13 = {
                when: variant12,
                expiresAfterMs: BigInt.asUintN(64, dataView(memory0).getBigInt64(ret + 120, true)),
              };
              break;
            }
            default: {
              throw new TypeError('invalid variant discriminant for option');
            }
          }
          variant16= {
            tag: 'ok',
            val: {
              class: enum1,
              key: variant8,
              reconcile: variant10,
              leaseMs: BigInt.asUintN(64, dataView(memory0).getBigInt64(ret + 56, true)),
              maxCallMs: BigInt.asUintN(64, dataView(memory0).getBigInt64(ret + 64, true)),
              reconcileAfterMs: BigInt.asUintN(64, dataView(memory0).getBigInt64(ret + 72, true)),
              escalateAfterMs: BigInt.asUintN(64, dataView(memory0).getBigInt64(ret + 80, true)),
              retentionMs: BigInt.asUintN(64, dataView(memory0).getBigInt64(ret + 88, true)),
              approval: variant13,
            }
          };
          break;
        }
        case 1: {
          var ptr14 = dataView(memory0).getInt32(ret + 8, true);
          var len14 = dataView(memory0).getInt32(ret + 12, true);
          var result14 = utf8Decoder.decode(new Uint8Array(memory0.buffer, ptr14, len14));
          var ptr15 = dataView(memory0).getInt32(ret + 16, true);
          var len15 = dataView(memory0).getInt32(ret + 20, true);
          var result15 = utf8Decoder.decode(new Uint8Array(memory0.buffer, ptr15, len15));
          variant16= {
            tag: 'err',
            val: {
              at: result14,
              message: result15,
            }
          };
          break;
        }
        default: {
          throw new TypeError('invalid variant discriminant for expected');
        }
      }
      const retVal = variant16;
      postReturn8(ret);
      if (typeof retVal === 'object' && retVal.tag === 'err') {
        throw new ComponentError(retVal.val);
      }
      return retVal.val;
    }
    let policy010ResolveTool;
    
    function resolveTool(arg0) {
      var ptr0 = utf8Encode(arg0, realloc0, memory0);
      var len0 = utf8EncodedLen;
      const ret = policy010ResolveTool(ptr0, len0);
      let variant18;
      switch (dataView(memory0).getUint8(ret + 0, true)) {
        case 0: {
          var ptr1 = dataView(memory0).getInt32(ret + 8, true);
          var len1 = dataView(memory0).getInt32(ret + 12, true);
          var result1 = utf8Decoder.decode(new Uint8Array(memory0.buffer, ptr1, len1));
          let enum2;
          switch (dataView(memory0).getUint8(ret + 16, true)) {
            case 0: {
              enum2 = 'read-only';
              break;
            }
            case 1: {
              enum2 = 'overwriting-write';
              break;
            }
            case 2: {
              enum2 = 'accumulating-write';
              break;
            }
            case 3: {
              enum2 = 'irreversible-external';
              break;
            }
            default: {
              throw new TypeError('invalid discriminant specified for EffectClass');
            }
          }
          let variant9;
          switch (dataView(memory0).getUint8(ret + 20, true)) {
            case 0: {
              variant9 = undefined;
              break;
            }
            case 1: {
              let variant5;
              switch (dataView(memory0).getUint8(ret + 24, true)) {
                case 0: {
                  variant5 = undefined;
                  break;
                }
                case 1: {
                  var len4 = dataView(memory0).getInt32(ret + 32, true);
                  var base4 = dataView(memory0).getInt32(ret + 28, true);
                  var result4 = [];
                  for (let i = 0; i < len4; i++) {
                    const base = base4 + i * 8;
                    var ptr3 = dataView(memory0).getInt32(base + 0, true);
                    var len3 = dataView(memory0).getInt32(base + 4, true);
                    var result3 = utf8Decoder.decode(new Uint8Array(memory0.buffer, ptr3, len3));
                    result4.push(result3);
                  }
                  variant5 = result4;
                  break;
                }
                default: {
                  throw new TypeError('invalid variant discriminant for option');
                }
              }
              var len7 = dataView(memory0).getInt32(ret + 40, true);
              var base7 = dataView(memory0).getInt32(ret + 36, true);
              var result7 = [];
              for (let i = 0; i < len7; i++) {
                const base = base7 + i * 8;
                var ptr6 = dataView(memory0).getInt32(base + 0, true);
                var len6 = dataView(memory0).getInt32(base + 4, true);
                var result6 = utf8Decoder.decode(new Uint8Array(memory0.buffer, ptr6, len6));
                result7.push(result6);
              }
              let enum8;
              switch (dataView(memory0).getUint8(ret + 44, true)) {
                case 0: {
                  enum8 = 'step';
                  break;
                }
                case 1: {
                  enum8 = 'run';
                  break;
                }
                case 2: {
                  enum8 = 'scope';
                  break;
                }
                default: {
                  throw new TypeError('invalid discriminant specified for KeyIdentity');
                }
              }
              variant9 = {
                only: variant5,
                ignore: result7,
                identity: enum8,
              };
              break;
            }
            default: {
              throw new TypeError('invalid variant discriminant for option');
            }
          }
          let variant11;
          switch (dataView(memory0).getUint8(ret + 48, true)) {
            case 0: {
              variant11= {
                tag: 'none',
              };
              break;
            }
            case 1: {
              variant11= {
                tag: 'provider-idempotent',
              };
              break;
            }
            case 2: {
              var ptr10 = dataView(memory0).getInt32(ret + 52, true);
              var len10 = dataView(memory0).getInt32(ret + 56, true);
              var result10 = utf8Decoder.decode(new Uint8Array(memory0.buffer, ptr10, len10));
              variant11= {
                tag: 'lookup',
                val: result10
              };
              break;
            }
            case 3: {
              variant11= {
                tag: 'manual',
              };
              break;
            }
            default: {
              throw new TypeError('invalid variant discriminant for ReconcilePath');
            }
          }
          let variant14;
          switch (dataView(memory0).getUint8(ret + 104, true)) {
            case 0: {
              variant14 = undefined;
              break;
            }
            case 1: {
              let variant13;
              switch (dataView(memory0).getUint8(ret + 112, true)) {
                case 0: {
                  variant13 = undefined;
                  break;
                }
                case 1: {
                  var ptr12 = dataView(memory0).getInt32(ret + 116, true);
                  var len12 = dataView(memory0).getInt32(ret + 120, true);
                  var result12 = utf8Decoder.decode(new Uint8Array(memory0.buffer, ptr12, len12));
                  variant13 = result12;
                  break;
                }
                default: {
                  throw new TypeError('invalid variant discriminant for option');
                }
              }
              variant14 = {
                when: variant13,
                expiresAfterMs: BigInt.asUintN(64, dataView(memory0).getBigInt64(ret + 128, true)),
              };
              break;
            }
            default: {
              throw new TypeError('invalid variant discriminant for option');
            }
          }
          let enum15;
          switch (dataView(memory0).getUint8(ret + 136, true)) {
            case 0: {
              enum15 = 'policy';
              break;
            }
            case 1: {
              enum15 = 'annotations';
              break;
            }
            case 2: {
              enum15 = 'defaults';
              break;
            }
            default: {
              throw new TypeError('invalid discriminant specified for ClassSource');
            }
          }
          variant18= {
            tag: 'ok',
            val: {
              name: result1,
              policy: {
                class: enum2,
                key: variant9,
                reconcile: variant11,
                leaseMs: BigInt.asUintN(64, dataView(memory0).getBigInt64(ret + 64, true)),
                maxCallMs: BigInt.asUintN(64, dataView(memory0).getBigInt64(ret + 72, true)),
                reconcileAfterMs: BigInt.asUintN(64, dataView(memory0).getBigInt64(ret + 80, true)),
                escalateAfterMs: BigInt.asUintN(64, dataView(memory0).getBigInt64(ret + 88, true)),
                retentionMs: BigInt.asUintN(64, dataView(memory0).getBigInt64(ret + 96, true)),
                approval: variant14,
              },
              classSource: enum15,
            }
          };
          break;
        }
        case 1: {
          var ptr16 = dataView(memory0).getInt32(ret + 8, true);
          var len16 = dataView(memory0).getInt32(ret + 12, true);
          var result16 = utf8Decoder.decode(new Uint8Array(memory0.buffer, ptr16, len16));
          var ptr17 = dataView(memory0).getInt32(ret + 16, true);
          var len17 = dataView(memory0).getInt32(ret + 20, true);
          var result17 = utf8Decoder.decode(new Uint8Array(memory0.buffer, ptr17, len17));
          variant18= {
            tag: 'err',
            val: {
              at: result16,
              message: result17,
            }
          };
          break;
        }
        default: {
          throw new TypeError('invalid variant discriminant for expected');
        }
      }
      const retVal = variant18;
      postReturn9(ret);
      if (typeof retVal === 'object' && retVal.tag === 'err') {
        throw new ComponentError(retVal.val);
      }
      return retVal.val;
    }
    let policy010CheckManifest;
    
    function checkManifest(arg0) {
      var ptr0 = utf8Encode(arg0, realloc0, memory0);
      var len0 = utf8EncodedLen;
      const ret = policy010CheckManifest(ptr0, len0);
      let variant26;
      switch (dataView(memory0).getUint8(ret + 0, true)) {
        case 0: {
          var bool1 = dataView(memory0).getUint8(ret + 4, true);
          var len17 = dataView(memory0).getInt32(ret + 12, true);
          var base17 = dataView(memory0).getInt32(ret + 8, true);
          var result17 = [];
          for (let i = 0; i < len17; i++) {
            const base = base17 + i * 136;
            var ptr2 = dataView(memory0).getInt32(base + 0, true);
            var len2 = dataView(memory0).getInt32(base + 4, true);
            var result2 = utf8Decoder.decode(new Uint8Array(memory0.buffer, ptr2, len2));
            let enum3;
            switch (dataView(memory0).getUint8(base + 8, true)) {
              case 0: {
                enum3 = 'read-only';
                break;
              }
              case 1: {
                enum3 = 'overwriting-write';
                break;
              }
              case 2: {
                enum3 = 'accumulating-write';
                break;
              }
              case 3: {
                enum3 = 'irreversible-external';
                break;
              }
              default: {
                throw new TypeError('invalid discriminant specified for EffectClass');
              }
            }
            let variant10;
            switch (dataView(memory0).getUint8(base + 12, true)) {
              case 0: {
                variant10 = undefined;
                break;
              }
              case 1: {
                let variant6;
                switch (dataView(memory0).getUint8(base + 16, true)) {
                  case 0: {
                    variant6 = undefined;
                    break;
                  }
                  case 1: {
                    var len5 = dataView(memory0).getInt32(base + 24, true);
                    var base5 = dataView(memory0).getInt32(base + 20, true);
                    var result5 = [];
                    for (let i = 0; i < len5; i++) {
                      const base = base5 + i * 8;
                      var ptr4 = dataView(memory0).getInt32(base + 0, true);
                      var len4 = dataView(memory0).getInt32(base + 4, true);
                      var result4 = utf8Decoder.decode(new Uint8Array(memory0.buffer, ptr4, len4));
                      result5.push(result4);
                    }
                    variant6 = result5;
                    break;
                  }
                  default: {
                    throw new TypeError('invalid variant discriminant for option');
                  }
                }
                var len8 = dataView(memory0).getInt32(base + 32, true);
                var base8 = dataView(memory0).getInt32(base + 28, true);
                var result8 = [];
                for (let i = 0; i < len8; i++) {
                  const base = base8 + i * 8;
                  var ptr7 = dataView(memory0).getInt32(base + 0, true);
                  var len7 = dataView(memory0).getInt32(base + 4, true);
                  var result7 = utf8Decoder.decode(new Uint8Array(memory0.buffer, ptr7, len7));
                  result8.push(result7);
                }
                let enum9;
                switch (dataView(memory0).getUint8(base + 36, true)) {
                  case 0: {
                    enum9 = 'step';
                    break;
                  }
                  case 1: {
                    enum9 = 'run';
                    break;
                  }
                  case 2: {
                    enum9 = 'scope';
                    break;
                  }
                  default: {
                    throw new TypeError('invalid discriminant specified for KeyIdentity');
                  }
                }
                variant10 = {
                  only: variant6,
                  ignore: result8,
                  identity: enum9,
                };
                break;
              }
              default: {
                throw new TypeError('invalid variant discriminant for option');
              }
            }
            let variant12;
            switch (dataView(memory0).getUint8(base + 40, true)) {
              case 0: {
                variant12= {
                  tag: 'none',
                };
                break;
              }
              case 1: {
                variant12= {
                  tag: 'provider-idempotent',
                };
                break;
              }
              case 2: {
                var ptr11 = dataView(memory0).getInt32(base + 44, true);
                var len11 = dataView(memory0).getInt32(base + 48, true);
                var result11 = utf8Decoder.decode(new Uint8Array(memory0.buffer, ptr11, len11));
                variant12= {
                  tag: 'lookup',
                  val: result11
                };
                break;
              }
              case 3: {
                variant12= {
                  tag: 'manual',
                };
                break;
              }
              default: {
                throw new TypeError('invalid variant discriminant for ReconcilePath');
              }
            }
            let variant15;
            switch (dataView(memory0).getUint8(base + 96, true)) {
              case 0: {
                variant15 = undefined;
                break;
              }
              case 1: {
                let variant14;
                switch (dataView(memory0).getUint8(base + 104, true)) {
                  case 0: {
                    variant14 = undefined;
                    break;
                  }
                  case 1: {
                    var ptr13 = dataView(memory0).getInt32(base + 108, true);
                    var len13 = dataView(memory0).getInt32(base + 112, true);
                    var result13 = utf8Decoder.decode(new Uint8Array(memory0.buffer, ptr13, len13));
                    variant14 = result13;
                    break;
                  }
                  default: {
                    throw new TypeError('invalid variant discriminant for option');
                  }
                }
                variant15 = {
                  when: variant14,
                  expiresAfterMs: BigInt.asUintN(64, dataView(memory0).getBigInt64(base + 120, true)),
                };
                break;
              }
              default: {
                throw new TypeError('invalid variant discriminant for option');
              }
            }
            let enum16;
            switch (dataView(memory0).getUint8(base + 128, true)) {
              case 0: {
                enum16 = 'policy';
                break;
              }
              case 1: {
                enum16 = 'annotations';
                break;
              }
              case 2: {
                enum16 = 'defaults';
                break;
              }
              default: {
                throw new TypeError('invalid discriminant specified for ClassSource');
              }
            }
            result17.push({
              name: result2,
              policy: {
                class: enum3,
                key: variant10,
                reconcile: variant12,
                leaseMs: BigInt.asUintN(64, dataView(memory0).getBigInt64(base + 56, true)),
                maxCallMs: BigInt.asUintN(64, dataView(memory0).getBigInt64(base + 64, true)),
                reconcileAfterMs: BigInt.asUintN(64, dataView(memory0).getBigInt64(base + 72, true)),
                escalateAfterMs: BigInt.asUintN(64, dataView(memory0).getBigInt64(base + 80, true)),
                retentionMs: BigInt.asUintN(64, dataView(memory0).getBigInt64(base + 88, true)),
                approval: variant15,
              },
              classSource: enum16,
            });
          }
          var len23 = dataView(memory0).getInt32(ret + 20, true);
          var base23 = dataView(memory0).getInt32(ret + 16, true);
          var result23 = [];
          for (let i = 0; i < len23; i++) {
            const base = base23 + i * 32;
            let enum18;
            switch (dataView(memory0).getUint8(base + 0, true)) {
              case 0: {
                enum18 = 'error';
                break;
              }
              case 1: {
                enum18 = 'warning';
                break;
              }
              case 2: {
                enum18 = 'info';
                break;
              }
              default: {
                throw new TypeError('invalid discriminant specified for Severity');
              }
            }
            let variant20;
            switch (dataView(memory0).getUint8(base + 4, true)) {
              case 0: {
                variant20 = undefined;
                break;
              }
              case 1: {
                var ptr19 = dataView(memory0).getInt32(base + 8, true);
                var len19 = dataView(memory0).getInt32(base + 12, true);
                var result19 = utf8Decoder.decode(new Uint8Array(memory0.buffer, ptr19, len19));
                variant20 = result19;
                break;
              }
              default: {
                throw new TypeError('invalid variant discriminant for option');
              }
            }
            var ptr21 = dataView(memory0).getInt32(base + 16, true);
            var len21 = dataView(memory0).getInt32(base + 20, true);
            var result21 = utf8Decoder.decode(new Uint8Array(memory0.buffer, ptr21, len21));
            var ptr22 = dataView(memory0).getInt32(base + 24, true);
            var len22 = dataView(memory0).getInt32(base + 28, true);
            var result22 = utf8Decoder.decode(new Uint8Array(memory0.buffer, ptr22, len22));
            result23.push({
              severity: enum18,
              tool: variant20,
              code: result21,
              message: result22,
            });
          }
          variant26= {
            tag: 'ok',
            val: {
              passed: bool1 == 0 ? false : (bool1 == 1 ? true : throwInvalidBool()),
              tools: result17,
              findings: result23,
            }
          };
          break;
        }
        case 1: {
          var ptr24 = dataView(memory0).getInt32(ret + 4, true);
          var len24 = dataView(memory0).getInt32(ret + 8, true);
          var result24 = utf8Decoder.decode(new Uint8Array(memory0.buffer, ptr24, len24));
          var ptr25 = dataView(memory0).getInt32(ret + 12, true);
          var len25 = dataView(memory0).getInt32(ret + 16, true);
          var result25 = utf8Decoder.decode(new Uint8Array(memory0.buffer, ptr25, len25));
          variant26= {
            tag: 'err',
            val: {
              at: result24,
              message: result25,
            }
          };
          break;
        }
        default: {
          throw new TypeError('invalid variant discriminant for expected');
        }
      }
      const retVal = variant26;
      postReturn10(ret);
      if (typeof retVal === 'object' && retVal.tag === 'err') {
        throw new ComponentError(retVal.val);
      }
      return retVal.val;
    }
    let ledger010Prepare;
    
    function prepare(arg0, arg1, arg2) {
      var ptr0 = realloc0(0, 0, 8, 168);
      var {scope: v1_0, runId: v1_1, stepId: v1_2, tool: v1_3, argsJson: v1_4 } = arg0;
      var ptr2 = utf8Encode(v1_0, realloc0, memory0);
      var len2 = utf8EncodedLen;
      dataView(memory0).setInt32(ptr0 + 4, len2, true);
      dataView(memory0).setInt32(ptr0 + 0, ptr2, true);
      var ptr3 = utf8Encode(v1_1, realloc0, memory0);
      var len3 = utf8EncodedLen;
      dataView(memory0).setInt32(ptr0 + 12, len3, true);
      dataView(memory0).setInt32(ptr0 + 8, ptr3, true);
      var ptr4 = utf8Encode(v1_2, realloc0, memory0);
      var len4 = utf8EncodedLen;
      dataView(memory0).setInt32(ptr0 + 20, len4, true);
      dataView(memory0).setInt32(ptr0 + 16, ptr4, true);
      var ptr5 = utf8Encode(v1_3, realloc0, memory0);
      var len5 = utf8EncodedLen;
      dataView(memory0).setInt32(ptr0 + 28, len5, true);
      dataView(memory0).setInt32(ptr0 + 24, ptr5, true);
      var ptr6 = utf8Encode(v1_4, realloc0, memory0);
      var len6 = utf8EncodedLen;
      dataView(memory0).setInt32(ptr0 + 36, len6, true);
      dataView(memory0).setInt32(ptr0 + 32, ptr6, true);
      var {class: v7_0, key: v7_1, reconcile: v7_2, leaseMs: v7_3, maxCallMs: v7_4, reconcileAfterMs: v7_5, escalateAfterMs: v7_6, retentionMs: v7_7, approval: v7_8 } = arg1;
      var val8 = v7_0;
      let enum8;
      switch (val8) {
        case 'read-only': {
          enum8 = 0;
          break;
        }
        case 'overwriting-write': {
          enum8 = 1;
          break;
        }
        case 'accumulating-write': {
          enum8 = 2;
          break;
        }
        case 'irreversible-external': {
          enum8 = 3;
          break;
        }
        default: {
          if ((v7_0) instanceof Error) {
            console.error(v7_0);
          }
          
          throw new TypeError(`"${val8}" is not one of the cases of effect-class`);
        }
      }
      dataView(memory0).setInt8(ptr0 + 40, enum8, true);
      var variant16 = v7_1;
      if (variant16 === null || variant16=== undefined) {
        dataView(memory0).setInt8(ptr0 + 44, 0, true);
      } else {
        const e = variant16;
        dataView(memory0).setInt8(ptr0 + 44, 1, true);
        var {only: v9_0, ignore: v9_1, identity: v9_2 } = e;
        var variant12 = v9_0;
        if (variant12 === null || variant12=== undefined) {
          dataView(memory0).setInt8(ptr0 + 48, 0, true);
        } else {
          const e = variant12;
          dataView(memory0).setInt8(ptr0 + 48, 1, true);
          var vec11 = e;
          var len11 = vec11.length;
          var result11 = realloc0(0, 0, 4, len11 * 8);
          for (let i = 0; i < vec11.length; i++) {
            const e = vec11[i];
            const base = result11 + i * 8;var ptr10 = utf8Encode(e, realloc0, memory0);
            var len10 = utf8EncodedLen;
            dataView(memory0).setInt32(base + 4, len10, true);
            dataView(memory0).setInt32(base + 0, ptr10, true);
          }
          dataView(memory0).setInt32(ptr0 + 56, len11, true);
          dataView(memory0).setInt32(ptr0 + 52, result11, true);
        }
        var vec14 = v9_1;
        var len14 = vec14.length;
        var result14 = realloc0(0, 0, 4, len14 * 8);
        for (let i = 0; i < vec14.length; i++) {
          const e = vec14[i];
          const base = result14 + i * 8;var ptr13 = utf8Encode(e, realloc0, memory0);
          var len13 = utf8EncodedLen;
          dataView(memory0).setInt32(base + 4, len13, true);
          dataView(memory0).setInt32(base + 0, ptr13, true);
        }
        dataView(memory0).setInt32(ptr0 + 64, len14, true);
        dataView(memory0).setInt32(ptr0 + 60, result14, true);
        var val15 = v9_2;
        let enum15;
        switch (val15) {
          case 'step': {
            enum15 = 0;
            break;
          }
          case 'run': {
            enum15 = 1;
            break;
          }
          case 'scope': {
            enum15 = 2;
            break;
          }
          default: {
            if ((v9_2) instanceof Error) {
              console.error(v9_2);
            }
            
            throw new TypeError(`"${val15}" is not one of the cases of key-identity`);
          }
        }
        dataView(memory0).setInt8(ptr0 + 68, enum15, true);
      }
      var variant18 = v7_2;
      switch (variant18.tag) {
        case 'none': {
          dataView(memory0).setInt8(ptr0 + 72, 0, true);
          break;
        }
        case 'provider-idempotent': {
          dataView(memory0).setInt8(ptr0 + 72, 1, true);
          break;
        }
        case 'lookup': {
          const e = variant18.val;
          dataView(memory0).setInt8(ptr0 + 72, 2, true);
          var ptr17 = utf8Encode(e, realloc0, memory0);
          var len17 = utf8EncodedLen;
          dataView(memory0).setInt32(ptr0 + 80, len17, true);
          dataView(memory0).setInt32(ptr0 + 76, ptr17, true);
          break;
        }
        case 'manual': {
          dataView(memory0).setInt8(ptr0 + 72, 3, true);
          break;
        }
        default: {
          throw new TypeError(`invalid variant tag value \`${JSON.stringify(variant18.tag)}\` (received \`${variant18}\`) specified for \`ReconcilePath\``);
        }
      }
      dataView(memory0).setBigInt64(ptr0 + 88, toUint64(v7_3), true);
      dataView(memory0).setBigInt64(ptr0 + 96, toUint64(v7_4), true);
      dataView(memory0).setBigInt64(ptr0 + 104, toUint64(v7_5), true);
      dataView(memory0).setBigInt64(ptr0 + 112, toUint64(v7_6), true);
      dataView(memory0).setBigInt64(ptr0 + 120, toUint64(v7_7), true);
      var variant22 = v7_8;
      if (variant22 === null || variant22=== undefined) {
        dataView(memory0).setInt8(ptr0 + 128, 0, true);
      } else {
        const e = variant22;
        dataView(memory0).setInt8(ptr0 + 128, 1, true);
        var {when: v19_0, expiresAfterMs: v19_1 } = e;
        var variant21 = v19_0;
        if (variant21 === null || variant21=== undefined) {
          dataView(memory0).setInt8(ptr0 + 136, 0, true);
        } else {
          const e = variant21;
          dataView(memory0).setInt8(ptr0 + 136, 1, true);
          var ptr20 = utf8Encode(e, realloc0, memory0);
          var len20 = utf8EncodedLen;
          dataView(memory0).setInt32(ptr0 + 144, len20, true);
          dataView(memory0).setInt32(ptr0 + 140, ptr20, true);
        }
        dataView(memory0).setBigInt64(ptr0 + 152, toUint64(v19_1), true);
      }
      var ptr23 = utf8Encode(arg2, realloc0, memory0);
      var len23 = utf8EncodedLen;
      dataView(memory0).setInt32(ptr0 + 164, len23, true);
      dataView(memory0).setInt32(ptr0 + 160, ptr23, true);
      const ret = ledger010Prepare(ptr0);
      let variant52;
      switch (dataView(memory0).getUint8(ret + 0, true)) {
        case 0: {
          var ptr24 = dataView(memory0).getInt32(ret + 8, true);
          var len24 = dataView(memory0).getInt32(ret + 12, true);
          var result24 = utf8Decoder.decode(new Uint8Array(memory0.buffer, ptr24, len24));
          var ptr25 = dataView(memory0).getInt32(ret + 16, true);
          var len25 = dataView(memory0).getInt32(ret + 20, true);
          var result25 = utf8Decoder.decode(new Uint8Array(memory0.buffer, ptr25, len25));
          var ptr26 = dataView(memory0).getInt32(ret + 24, true);
          var len26 = dataView(memory0).getInt32(ret + 28, true);
          var result26 = utf8Decoder.decode(new Uint8Array(memory0.buffer, ptr26, len26));
          var ptr27 = dataView(memory0).getInt32(ret + 32, true);
          var len27 = dataView(memory0).getInt32(ret + 36, true);
          var result27 = utf8Decoder.decode(new Uint8Array(memory0.buffer, ptr27, len27));
          var ptr28 = dataView(memory0).getInt32(ret + 40, true);
          var len28 = dataView(memory0).getInt32(ret + 44, true);
          var result28 = utf8Decoder.decode(new Uint8Array(memory0.buffer, ptr28, len28));
          var ptr29 = dataView(memory0).getInt32(ret + 48, true);
          var len29 = dataView(memory0).getInt32(ret + 52, true);
          var result29 = utf8Decoder.decode(new Uint8Array(memory0.buffer, ptr29, len29));
          var ptr30 = dataView(memory0).getInt32(ret + 56, true);
          var len30 = dataView(memory0).getInt32(ret + 60, true);
          var result30 = utf8Decoder.decode(new Uint8Array(memory0.buffer, ptr30, len30));
          var ptr31 = dataView(memory0).getInt32(ret + 64, true);
          var len31 = dataView(memory0).getInt32(ret + 68, true);
          var result31 = utf8Decoder.decode(new Uint8Array(memory0.buffer, ptr31, len31));
          let enum32;
          switch (dataView(memory0).getUint8(ret + 72, true)) {
            case 0: {
              enum32 = 'read-only';
              break;
            }
            case 1: {
              enum32 = 'overwriting-write';
              break;
            }
            case 2: {
              enum32 = 'accumulating-write';
              break;
            }
            case 3: {
              enum32 = 'irreversible-external';
              break;
            }
            default: {
              throw new TypeError('invalid discriminant specified for EffectClass');
            }
          }
          let variant39;
          switch (dataView(memory0).getUint8(ret + 76, true)) {
            case 0: {
              variant39 = undefined;
              break;
            }
            case 1: {
              let variant35;
              switch (dataView(memory0).getUint8(ret + 80, true)) {
                case 0: {
                  variant35 = undefined;
                  break;
                }
                case 1: {
                  var len34 = dataView(memory0).getInt32(ret + 88, true);
                  var base34 = dataView(memory0).getInt32(ret + 84, true);
                  var result34 = [];
                  for (let i = 0; i < len34; i++) {
                    const base = base34 + i * 8;
                    var ptr33 = dataView(memory0).getInt32(base + 0, true);
                    var len33 = dataView(memory0).getInt32(base + 4, true);
                    var result33 = utf8Decoder.decode(new Uint8Array(memory0.buffer, ptr33, len33));
                    result34.push(result33);
                  }
                  variant35 = result34;
                  break;
                }
                default: {
                  throw new TypeError('invalid variant discriminant for option');
                }
              }
              var len37 = dataView(memory0).getInt32(ret + 96, true);
              var base37 = dataView(memory0).getInt32(ret + 92, true);
              var result37 = [];
              for (let i = 0; i < len37; i++) {
                const base = base37 + i * 8;
                var ptr36 = dataView(memory0).getInt32(base + 0, true);
                var len36 = dataView(memory0).getInt32(base + 4, true);
                var result36 = utf8Decoder.decode(new Uint8Array(memory0.buffer, ptr36, len36));
                result37.push(result36);
              }
              let enum38;
              switch (dataView(memory0).getUint8(ret + 100, true)) {
                case 0: {
                  enum38 = 'step';
                  break;
                }
                case 1: {
                  enum38 = 'run';
                  break;
                }
                case 2: {
                  enum38 = 'scope';
                  break;
                }
                default: {
                  throw new TypeError('invalid discriminant specified for KeyIdentity');
                }
              }
              variant39 = {
                only: variant35,
                ignore: result37,
                identity: enum38,
              };
              break;
            }
            default: {
              throw new TypeError('invalid variant discriminant for option');
            }
          }
          let variant41;
          switch (dataView(memory0).getUint8(ret + 104, true)) {
            case 0: {
              variant41= {
                tag: 'none',
              };
              break;
            }
            case 1: {
              variant41= {
                tag: 'provider-idempotent',
              };
              break;
            }
            case 2: {
              var ptr40 = dataView(memory0).getInt32(ret + 108, true);
              var len40 = dataView(memory0).getInt32(ret + 112, true);
              var result40 = utf8Decoder.decode(new Uint8Array(memory0.buffer, ptr40, len40));
              variant41= {
                tag: 'lookup',
                val: result40
              };
              break;
            }
            case 3: {
              variant41= {
                tag: 'manual',
              };
              break;
            }
            default: {
              throw new TypeError('invalid variant discriminant for ReconcilePath');
            }
          }
          let variant44;
          switch (dataView(memory0).getUint8(ret + 160, true)) {
            case 0: {
              variant44 = undefined;
              break;
            }
            case 1: {
              let variant43;
              switch (dataView(memory0).getUint8(ret + 168, true)) {
                case 0: {
                  variant43 = undefined;
                  break;
                }
                case 1: {
                  var ptr42 = dataView(memory0).getInt32(ret + 172, true);
                  var len42 = dataView(memory0).getInt32(ret + 176, true);
                  var result42 = utf8Decoder.decode(new Uint8Array(memory0.buffer, ptr42, len42));
                  variant43 = result42;
                  break;
                }
                default: {
                  throw new TypeError('invalid variant discriminant for option');
                }
              }
              variant44 = {
                when: variant43,
                expiresAfterMs: BigInt.asUintN(64, dataView(memory0).getBigInt64(ret + 184, true)),
              };
              break;
            }
            default: {
              throw new TypeError('invalid variant discriminant for option');
            }
          }
          variant52= {
            tag: 'ok',
            val: {
              scope: result24,
              tool: result25,
              runId: result26,
              stepId: result27,
              key: result28,
              fingerprint: result29,
              argsCanonical: result30,
              owner: result31,
              policy: {
                class: enum32,
                key: variant39,
                reconcile: variant41,
                leaseMs: BigInt.asUintN(64, dataView(memory0).getBigInt64(ret + 120, true)),
                maxCallMs: BigInt.asUintN(64, dataView(memory0).getBigInt64(ret + 128, true)),
                reconcileAfterMs: BigInt.asUintN(64, dataView(memory0).getBigInt64(ret + 136, true)),
                escalateAfterMs: BigInt.asUintN(64, dataView(memory0).getBigInt64(ret + 144, true)),
                retentionMs: BigInt.asUintN(64, dataView(memory0).getBigInt64(ret + 152, true)),
                approval: variant44,
              },
            }
          };
          break;
        }
        case 1: {
          let enum45;
          switch (dataView(memory0).getUint8(ret + 8, true)) {
            case 0: {
              enum45 = 'invalid-args';
              break;
            }
            case 1: {
              enum45 = 'invalid-pointer';
              break;
            }
            case 2: {
              enum45 = 'missing-member';
              break;
            }
            case 3: {
              enum45 = 'pointer-into-array';
              break;
            }
            case 4: {
              enum45 = 'empty-field';
              break;
            }
            default: {
              throw new TypeError('invalid discriminant specified for KeyErrorKind');
            }
          }
          let variant47;
          switch (dataView(memory0).getUint8(ret + 12, true)) {
            case 0: {
              variant47 = undefined;
              break;
            }
            case 1: {
              var ptr46 = dataView(memory0).getInt32(ret + 16, true);
              var len46 = dataView(memory0).getInt32(ret + 20, true);
              var result46 = utf8Decoder.decode(new Uint8Array(memory0.buffer, ptr46, len46));
              variant47 = result46;
              break;
            }
            default: {
              throw new TypeError('invalid variant discriminant for option');
            }
          }
          let variant50;
          switch (dataView(memory0).getUint8(ret + 24, true)) {
            case 0: {
              variant50 = undefined;
              break;
            }
            case 1: {
              let enum48;
              switch (dataView(memory0).getUint8(ret + 32, true)) {
                case 0: {
                  enum48 = 'syntax';
                  break;
                }
                case 1: {
                  enum48 = 'invalid-utf8';
                  break;
                }
                case 2: {
                  enum48 = 'lone-surrogate';
                  break;
                }
                case 3: {
                  enum48 = 'duplicate-key';
                  break;
                }
                case 4: {
                  enum48 = 'number-overflow';
                  break;
                }
                case 5: {
                  enum48 = 'inexact-integer';
                  break;
                }
                case 6: {
                  enum48 = 'too-deep';
                  break;
                }
                case 7: {
                  enum48 = 'too-large';
                  break;
                }
                default: {
                  throw new TypeError('invalid discriminant specified for CanonErrorKind');
                }
              }
              var ptr49 = dataView(memory0).getInt32(ret + 56, true);
              var len49 = dataView(memory0).getInt32(ret + 60, true);
              var result49 = utf8Decoder.decode(new Uint8Array(memory0.buffer, ptr49, len49));
              variant50 = {
                kind: enum48,
                offset: BigInt.asUintN(64, dataView(memory0).getBigInt64(ret + 40, true)),
                line: dataView(memory0).getInt32(ret + 48, true) >>> 0,
                column: dataView(memory0).getInt32(ret + 52, true) >>> 0,
                message: result49,
              };
              break;
            }
            default: {
              throw new TypeError('invalid variant discriminant for option');
            }
          }
          var ptr51 = dataView(memory0).getInt32(ret + 64, true);
          var len51 = dataView(memory0).getInt32(ret + 68, true);
          var result51 = utf8Decoder.decode(new Uint8Array(memory0.buffer, ptr51, len51));
          variant52= {
            tag: 'err',
            val: {
              kind: enum45,
              at: variant47,
              canon: variant50,
              message: result51,
            }
          };
          break;
        }
        default: {
          throw new TypeError('invalid variant discriminant for expected');
        }
      }
      const retVal = variant52;
      postReturn11(ret);
      if (typeof retVal === 'object' && retVal.tag === 'err') {
        throw new ComponentError(retVal.val);
      }
      return retVal.val;
    }
    let ledger010NeedsPerson;
    
    function needsPerson(arg0, arg1, arg2) {
      var ptr0 = realloc0(0, 0, 8, 288);
      var {scope: v1_0, key: v1_1, tool: v1_2, runId: v1_3, stepId: v1_4, fingerprint: v1_5, argsCanonical: v1_6, state: v1_7, version: v1_8, attempt: v1_9, owner: v1_10, createdAt: v1_11, updatedAt: v1_12, leaseUntil: v1_13, inDoubtSince: v1_14, nextReconcileAt: v1_15, reconcileAttempts: v1_16, resultJson: v1_17, reason: v1_18, resolvedBy: v1_19, settlement: v1_20, reconcile: v1_21, leaseMs: v1_22, maxCallMs: v1_23, reconcileAfterMs: v1_24, escalateAfterMs: v1_25, retentionMs: v1_26, dueAt: v1_27 } = arg0;
      var ptr2 = utf8Encode(v1_0, realloc0, memory0);
      var len2 = utf8EncodedLen;
      dataView(memory0).setInt32(ptr0 + 4, len2, true);
      dataView(memory0).setInt32(ptr0 + 0, ptr2, true);
      var ptr3 = utf8Encode(v1_1, realloc0, memory0);
      var len3 = utf8EncodedLen;
      dataView(memory0).setInt32(ptr0 + 12, len3, true);
      dataView(memory0).setInt32(ptr0 + 8, ptr3, true);
      var ptr4 = utf8Encode(v1_2, realloc0, memory0);
      var len4 = utf8EncodedLen;
      dataView(memory0).setInt32(ptr0 + 20, len4, true);
      dataView(memory0).setInt32(ptr0 + 16, ptr4, true);
      var ptr5 = utf8Encode(v1_3, realloc0, memory0);
      var len5 = utf8EncodedLen;
      dataView(memory0).setInt32(ptr0 + 28, len5, true);
      dataView(memory0).setInt32(ptr0 + 24, ptr5, true);
      var ptr6 = utf8Encode(v1_4, realloc0, memory0);
      var len6 = utf8EncodedLen;
      dataView(memory0).setInt32(ptr0 + 36, len6, true);
      dataView(memory0).setInt32(ptr0 + 32, ptr6, true);
      var ptr7 = utf8Encode(v1_5, realloc0, memory0);
      var len7 = utf8EncodedLen;
      dataView(memory0).setInt32(ptr0 + 44, len7, true);
      dataView(memory0).setInt32(ptr0 + 40, ptr7, true);
      var ptr8 = utf8Encode(v1_6, realloc0, memory0);
      var len8 = utf8EncodedLen;
      dataView(memory0).setInt32(ptr0 + 52, len8, true);
      dataView(memory0).setInt32(ptr0 + 48, ptr8, true);
      var val9 = v1_7;
      let enum9;
      switch (val9) {
        case 'pending': {
          enum9 = 0;
          break;
        }
        case 'done': {
          enum9 = 1;
          break;
        }
        case 'failed': {
          enum9 = 2;
          break;
        }
        case 'in-doubt': {
          enum9 = 3;
          break;
        }
        case 'escalated': {
          enum9 = 4;
          break;
        }
        case 'awaiting-approval': {
          enum9 = 5;
          break;
        }
        case 'approved': {
          enum9 = 6;
          break;
        }
        case 'denied': {
          enum9 = 7;
          break;
        }
        default: {
          if ((v1_7) instanceof Error) {
            console.error(v1_7);
          }
          
          throw new TypeError(`"${val9}" is not one of the cases of entry-state`);
        }
      }
      dataView(memory0).setInt8(ptr0 + 56, enum9, true);
      dataView(memory0).setBigInt64(ptr0 + 64, toUint64(v1_8), true);
      dataView(memory0).setInt32(ptr0 + 72, toUint32(v1_9), true);
      var ptr10 = utf8Encode(v1_10, realloc0, memory0);
      var len10 = utf8EncodedLen;
      dataView(memory0).setInt32(ptr0 + 80, len10, true);
      dataView(memory0).setInt32(ptr0 + 76, ptr10, true);
      dataView(memory0).setBigInt64(ptr0 + 88, toUint64(v1_11), true);
      dataView(memory0).setBigInt64(ptr0 + 96, toUint64(v1_12), true);
      dataView(memory0).setBigInt64(ptr0 + 104, toUint64(v1_13), true);
      var variant11 = v1_14;
      if (variant11 === null || variant11=== undefined) {
        dataView(memory0).setInt8(ptr0 + 112, 0, true);
      } else {
        const e = variant11;
        dataView(memory0).setInt8(ptr0 + 112, 1, true);
        dataView(memory0).setBigInt64(ptr0 + 120, toUint64(e), true);
      }
      var variant12 = v1_15;
      if (variant12 === null || variant12=== undefined) {
        dataView(memory0).setInt8(ptr0 + 128, 0, true);
      } else {
        const e = variant12;
        dataView(memory0).setInt8(ptr0 + 128, 1, true);
        dataView(memory0).setBigInt64(ptr0 + 136, toUint64(e), true);
      }
      dataView(memory0).setInt32(ptr0 + 144, toUint32(v1_16), true);
      var variant14 = v1_17;
      if (variant14 === null || variant14=== undefined) {
        dataView(memory0).setInt8(ptr0 + 148, 0, true);
      } else {
        const e = variant14;
        dataView(memory0).setInt8(ptr0 + 148, 1, true);
        var ptr13 = utf8Encode(e, realloc0, memory0);
        var len13 = utf8EncodedLen;
        dataView(memory0).setInt32(ptr0 + 156, len13, true);
        dataView(memory0).setInt32(ptr0 + 152, ptr13, true);
      }
      var variant16 = v1_18;
      if (variant16 === null || variant16=== undefined) {
        dataView(memory0).setInt8(ptr0 + 160, 0, true);
      } else {
        const e = variant16;
        dataView(memory0).setInt8(ptr0 + 160, 1, true);
        var ptr15 = utf8Encode(e, realloc0, memory0);
        var len15 = utf8EncodedLen;
        dataView(memory0).setInt32(ptr0 + 168, len15, true);
        dataView(memory0).setInt32(ptr0 + 164, ptr15, true);
      }
      var variant18 = v1_19;
      if (variant18 === null || variant18=== undefined) {
        dataView(memory0).setInt8(ptr0 + 172, 0, true);
      } else {
        const e = variant18;
        dataView(memory0).setInt8(ptr0 + 172, 1, true);
        var ptr17 = utf8Encode(e, realloc0, memory0);
        var len17 = utf8EncodedLen;
        dataView(memory0).setInt32(ptr0 + 180, len17, true);
        dataView(memory0).setInt32(ptr0 + 176, ptr17, true);
      }
      var variant20 = v1_20;
      if (variant20 === null || variant20=== undefined) {
        dataView(memory0).setInt8(ptr0 + 184, 0, true);
      } else {
        const e = variant20;
        dataView(memory0).setInt8(ptr0 + 184, 1, true);
        var ptr19 = utf8Encode(e, realloc0, memory0);
        var len19 = utf8EncodedLen;
        dataView(memory0).setInt32(ptr0 + 192, len19, true);
        dataView(memory0).setInt32(ptr0 + 188, ptr19, true);
      }
      var variant22 = v1_21;
      switch (variant22.tag) {
        case 'none': {
          dataView(memory0).setInt8(ptr0 + 196, 0, true);
          break;
        }
        case 'provider-idempotent': {
          dataView(memory0).setInt8(ptr0 + 196, 1, true);
          break;
        }
        case 'lookup': {
          const e = variant22.val;
          dataView(memory0).setInt8(ptr0 + 196, 2, true);
          var ptr21 = utf8Encode(e, realloc0, memory0);
          var len21 = utf8EncodedLen;
          dataView(memory0).setInt32(ptr0 + 204, len21, true);
          dataView(memory0).setInt32(ptr0 + 200, ptr21, true);
          break;
        }
        case 'manual': {
          dataView(memory0).setInt8(ptr0 + 196, 3, true);
          break;
        }
        default: {
          throw new TypeError(`invalid variant tag value \`${JSON.stringify(variant22.tag)}\` (received \`${variant22}\`) specified for \`ReconcilePath\``);
        }
      }
      dataView(memory0).setBigInt64(ptr0 + 208, toUint64(v1_22), true);
      dataView(memory0).setBigInt64(ptr0 + 216, toUint64(v1_23), true);
      dataView(memory0).setBigInt64(ptr0 + 224, toUint64(v1_24), true);
      dataView(memory0).setBigInt64(ptr0 + 232, toUint64(v1_25), true);
      dataView(memory0).setBigInt64(ptr0 + 240, toUint64(v1_26), true);
      var variant23 = v1_27;
      if (variant23 === null || variant23=== undefined) {
        dataView(memory0).setInt8(ptr0 + 248, 0, true);
      } else {
        const e = variant23;
        dataView(memory0).setInt8(ptr0 + 248, 1, true);
        dataView(memory0).setBigInt64(ptr0 + 256, toUint64(e), true);
      }
      dataView(memory0).setBigInt64(ptr0 + 264, toUint64(arg1), true);
      var variant24 = arg2;
      if (variant24 === null || variant24=== undefined) {
        dataView(memory0).setInt8(ptr0 + 272, 0, true);
      } else {
        const e = variant24;
        dataView(memory0).setInt8(ptr0 + 272, 1, true);
        dataView(memory0).setBigInt64(ptr0 + 280, toUint64(e), true);
      }
      const ret = ledger010NeedsPerson(ptr0);
      let variant26;
      switch (dataView(memory0).getUint8(ret + 0, true)) {
        case 0: {
          variant26 = undefined;
          break;
        }
        case 1: {
          let enum25;
          switch (dataView(memory0).getUint8(ret + 1, true)) {
            case 0: {
              enum25 = 'escalated';
              break;
            }
            case 1: {
              enum25 = 'in-doubt';
              break;
            }
            case 2: {
              enum25 = 'approval';
              break;
            }
            default: {
              throw new TypeError('invalid discriminant specified for Attention');
            }
          }
          variant26 = enum25;
          break;
        }
        default: {
          throw new TypeError('invalid variant discriminant for option');
        }
      }
      return variant26;
    }
    let ledger010NeedsPersonSince;
    
    function needsPersonSince(arg0, arg1) {
      var variant0 = arg1;
      let variant0_0;
      let variant0_1;
      if (variant0 === null || variant0=== undefined) {
        variant0_0 = 0;
        variant0_1 = 0n;
      } else {
        const e = variant0;
        variant0_0 = 1;
        variant0_1 = toUint64(e);
      }
      const ret = ledger010NeedsPersonSince(toUint64(arg0), variant0_0, variant0_1);
      let variant1;
      switch (dataView(memory0).getUint8(ret + 0, true)) {
        case 0: {
          variant1 = undefined;
          break;
        }
        case 1: {
          variant1 = BigInt.asUintN(64, dataView(memory0).getBigInt64(ret + 8, true));
          break;
        }
        default: {
          throw new TypeError('invalid variant discriminant for option');
        }
      }
      return variant1;
    }
    let ledger010Settleable;
    
    function settleable(arg0) {
      var val0 = arg0;
      let enum0;
      switch (val0) {
        case 'pending': {
          enum0 = 0;
          break;
        }
        case 'done': {
          enum0 = 1;
          break;
        }
        case 'failed': {
          enum0 = 2;
          break;
        }
        case 'in-doubt': {
          enum0 = 3;
          break;
        }
        case 'escalated': {
          enum0 = 4;
          break;
        }
        case 'awaiting-approval': {
          enum0 = 5;
          break;
        }
        case 'approved': {
          enum0 = 6;
          break;
        }
        case 'denied': {
          enum0 = 7;
          break;
        }
        default: {
          if ((arg0) instanceof Error) {
            console.error(arg0);
          }
          
          throw new TypeError(`"${val0}" is not one of the cases of entry-state`);
        }
      }
      const ret = ledger010Settleable(enum0);
      var bool1 = ret;
      return bool1 == 0 ? false : (bool1 == 1 ? true : throwInvalidBool());
    }
    let ledger010AsksApproval;
    
    function asksApproval(arg0, arg1, arg2) {
      var ptr0 = realloc0(0, 0, 8, 464);
      var variant24 = arg0;
      if (variant24 === null || variant24=== undefined) {
        dataView(memory0).setInt8(ptr0 + 0, 0, true);
      } else {
        const e = variant24;
        dataView(memory0).setInt8(ptr0 + 0, 1, true);
        var {scope: v1_0, key: v1_1, tool: v1_2, runId: v1_3, stepId: v1_4, fingerprint: v1_5, argsCanonical: v1_6, state: v1_7, version: v1_8, attempt: v1_9, owner: v1_10, createdAt: v1_11, updatedAt: v1_12, leaseUntil: v1_13, inDoubtSince: v1_14, nextReconcileAt: v1_15, reconcileAttempts: v1_16, resultJson: v1_17, reason: v1_18, resolvedBy: v1_19, settlement: v1_20, reconcile: v1_21, leaseMs: v1_22, maxCallMs: v1_23, reconcileAfterMs: v1_24, escalateAfterMs: v1_25, retentionMs: v1_26, dueAt: v1_27 } = e;
        var ptr2 = utf8Encode(v1_0, realloc0, memory0);
        var len2 = utf8EncodedLen;
        dataView(memory0).setInt32(ptr0 + 12, len2, true);
        dataView(memory0).setInt32(ptr0 + 8, ptr2, true);
        var ptr3 = utf8Encode(v1_1, realloc0, memory0);
        var len3 = utf8EncodedLen;
        dataView(memory0).setInt32(ptr0 + 20, len3, true);
        dataView(memory0).setInt32(ptr0 + 16, ptr3, true);
        var ptr4 = utf8Encode(v1_2, realloc0, memory0);
        var len4 = utf8EncodedLen;
        dataView(memory0).setInt32(ptr0 + 28, len4, true);
        dataView(memory0).setInt32(ptr0 + 24, ptr4, true);
        var ptr5 = utf8Encode(v1_3, realloc0, memory0);
        var len5 = utf8EncodedLen;
        dataView(memory0).setInt32(ptr0 + 36, len5, true);
        dataView(memory0).setInt32(ptr0 + 32, ptr5, true);
        var ptr6 = utf8Encode(v1_4, realloc0, memory0);
        var len6 = utf8EncodedLen;
        dataView(memory0).setInt32(ptr0 + 44, len6, true);
        dataView(memory0).setInt32(ptr0 + 40, ptr6, true);
        var ptr7 = utf8Encode(v1_5, realloc0, memory0);
        var len7 = utf8EncodedLen;
        dataView(memory0).setInt32(ptr0 + 52, len7, true);
        dataView(memory0).setInt32(ptr0 + 48, ptr7, true);
        var ptr8 = utf8Encode(v1_6, realloc0, memory0);
        var len8 = utf8EncodedLen;
        dataView(memory0).setInt32(ptr0 + 60, len8, true);
        dataView(memory0).setInt32(ptr0 + 56, ptr8, true);
        var val9 = v1_7;
        let enum9;
        switch (val9) {
          case 'pending': {
            enum9 = 0;
            break;
          }
          case 'done': {
            enum9 = 1;
            break;
          }
          case 'failed': {
            enum9 = 2;
            break;
          }
          case 'in-doubt': {
            enum9 = 3;
            break;
          }
          case 'escalated': {
            enum9 = 4;
            break;
          }
          case 'awaiting-approval': {
            enum9 = 5;
            break;
          }
          case 'approved': {
            enum9 = 6;
            break;
          }
          case 'denied': {
            enum9 = 7;
            break;
          }
          default: {
            if ((v1_7) instanceof Error) {
              console.error(v1_7);
            }
            
            throw new TypeError(`"${val9}" is not one of the cases of entry-state`);
          }
        }
        dataView(memory0).setInt8(ptr0 + 64, enum9, true);
        dataView(memory0).setBigInt64(ptr0 + 72, toUint64(v1_8), true);
        dataView(memory0).setInt32(ptr0 + 80, toUint32(v1_9), true);
        var ptr10 = utf8Encode(v1_10, realloc0, memory0);
        var len10 = utf8EncodedLen;
        dataView(memory0).setInt32(ptr0 + 88, len10, true);
        dataView(memory0).setInt32(ptr0 + 84, ptr10, true);
        dataView(memory0).setBigInt64(ptr0 + 96, toUint64(v1_11), true);
        dataView(memory0).setBigInt64(ptr0 + 104, toUint64(v1_12), true);
        dataView(memory0).setBigInt64(ptr0 + 112, toUint64(v1_13), true);
        var variant11 = v1_14;
        if (variant11 === null || variant11=== undefined) {
          dataView(memory0).setInt8(ptr0 + 120, 0, true);
        } else {
          const e = variant11;
          dataView(memory0).setInt8(ptr0 + 120, 1, true);
          dataView(memory0).setBigInt64(ptr0 + 128, toUint64(e), true);
        }
        var variant12 = v1_15;
        if (variant12 === null || variant12=== undefined) {
          dataView(memory0).setInt8(ptr0 + 136, 0, true);
        } else {
          const e = variant12;
          dataView(memory0).setInt8(ptr0 + 136, 1, true);
          dataView(memory0).setBigInt64(ptr0 + 144, toUint64(e), true);
        }
        dataView(memory0).setInt32(ptr0 + 152, toUint32(v1_16), true);
        var variant14 = v1_17;
        if (variant14 === null || variant14=== undefined) {
          dataView(memory0).setInt8(ptr0 + 156, 0, true);
        } else {
          const e = variant14;
          dataView(memory0).setInt8(ptr0 + 156, 1, true);
          var ptr13 = utf8Encode(e, realloc0, memory0);
          var len13 = utf8EncodedLen;
          dataView(memory0).setInt32(ptr0 + 164, len13, true);
          dataView(memory0).setInt32(ptr0 + 160, ptr13, true);
        }
        var variant16 = v1_18;
        if (variant16 === null || variant16=== undefined) {
          dataView(memory0).setInt8(ptr0 + 168, 0, true);
        } else {
          const e = variant16;
          dataView(memory0).setInt8(ptr0 + 168, 1, true);
          var ptr15 = utf8Encode(e, realloc0, memory0);
          var len15 = utf8EncodedLen;
          dataView(memory0).setInt32(ptr0 + 176, len15, true);
          dataView(memory0).setInt32(ptr0 + 172, ptr15, true);
        }
        var variant18 = v1_19;
        if (variant18 === null || variant18=== undefined) {
          dataView(memory0).setInt8(ptr0 + 180, 0, true);
        } else {
          const e = variant18;
          dataView(memory0).setInt8(ptr0 + 180, 1, true);
          var ptr17 = utf8Encode(e, realloc0, memory0);
          var len17 = utf8EncodedLen;
          dataView(memory0).setInt32(ptr0 + 188, len17, true);
          dataView(memory0).setInt32(ptr0 + 184, ptr17, true);
        }
        var variant20 = v1_20;
        if (variant20 === null || variant20=== undefined) {
          dataView(memory0).setInt8(ptr0 + 192, 0, true);
        } else {
          const e = variant20;
          dataView(memory0).setInt8(ptr0 + 192, 1, true);
          var ptr19 = utf8Encode(e, realloc0, memory0);
          var len19 = utf8EncodedLen;
          dataView(memory0).setInt32(ptr0 + 200, len19, true);
          dataView(memory0).setInt32(ptr0 + 196, ptr19, true);
        }
        var variant22 = v1_21;
        switch (variant22.tag) {
          case 'none': {
            dataView(memory0).setInt8(ptr0 + 204, 0, true);
            break;
          }
          case 'provider-idempotent': {
            dataView(memory0).setInt8(ptr0 + 204, 1, true);
            break;
          }
          case 'lookup': {
            const e = variant22.val;
            dataView(memory0).setInt8(ptr0 + 204, 2, true);
            var ptr21 = utf8Encode(e, realloc0, memory0);
            var len21 = utf8EncodedLen;
            dataView(memory0).setInt32(ptr0 + 212, len21, true);
            dataView(memory0).setInt32(ptr0 + 208, ptr21, true);
            break;
          }
          case 'manual': {
            dataView(memory0).setInt8(ptr0 + 204, 3, true);
            break;
          }
          default: {
            throw new TypeError(`invalid variant tag value \`${JSON.stringify(variant22.tag)}\` (received \`${variant22}\`) specified for \`ReconcilePath\``);
          }
        }
        dataView(memory0).setBigInt64(ptr0 + 216, toUint64(v1_22), true);
        dataView(memory0).setBigInt64(ptr0 + 224, toUint64(v1_23), true);
        dataView(memory0).setBigInt64(ptr0 + 232, toUint64(v1_24), true);
        dataView(memory0).setBigInt64(ptr0 + 240, toUint64(v1_25), true);
        dataView(memory0).setBigInt64(ptr0 + 248, toUint64(v1_26), true);
        var variant23 = v1_27;
        if (variant23 === null || variant23=== undefined) {
          dataView(memory0).setInt8(ptr0 + 256, 0, true);
        } else {
          const e = variant23;
          dataView(memory0).setInt8(ptr0 + 256, 1, true);
          dataView(memory0).setBigInt64(ptr0 + 264, toUint64(e), true);
        }
      }
      var {scope: v25_0, tool: v25_1, runId: v25_2, stepId: v25_3, key: v25_4, fingerprint: v25_5, argsCanonical: v25_6, owner: v25_7, policy: v25_8 } = arg1;
      var ptr26 = utf8Encode(v25_0, realloc0, memory0);
      var len26 = utf8EncodedLen;
      dataView(memory0).setInt32(ptr0 + 276, len26, true);
      dataView(memory0).setInt32(ptr0 + 272, ptr26, true);
      var ptr27 = utf8Encode(v25_1, realloc0, memory0);
      var len27 = utf8EncodedLen;
      dataView(memory0).setInt32(ptr0 + 284, len27, true);
      dataView(memory0).setInt32(ptr0 + 280, ptr27, true);
      var ptr28 = utf8Encode(v25_2, realloc0, memory0);
      var len28 = utf8EncodedLen;
      dataView(memory0).setInt32(ptr0 + 292, len28, true);
      dataView(memory0).setInt32(ptr0 + 288, ptr28, true);
      var ptr29 = utf8Encode(v25_3, realloc0, memory0);
      var len29 = utf8EncodedLen;
      dataView(memory0).setInt32(ptr0 + 300, len29, true);
      dataView(memory0).setInt32(ptr0 + 296, ptr29, true);
      var ptr30 = utf8Encode(v25_4, realloc0, memory0);
      var len30 = utf8EncodedLen;
      dataView(memory0).setInt32(ptr0 + 308, len30, true);
      dataView(memory0).setInt32(ptr0 + 304, ptr30, true);
      var ptr31 = utf8Encode(v25_5, realloc0, memory0);
      var len31 = utf8EncodedLen;
      dataView(memory0).setInt32(ptr0 + 316, len31, true);
      dataView(memory0).setInt32(ptr0 + 312, ptr31, true);
      var ptr32 = utf8Encode(v25_6, realloc0, memory0);
      var len32 = utf8EncodedLen;
      dataView(memory0).setInt32(ptr0 + 324, len32, true);
      dataView(memory0).setInt32(ptr0 + 320, ptr32, true);
      var ptr33 = utf8Encode(v25_7, realloc0, memory0);
      var len33 = utf8EncodedLen;
      dataView(memory0).setInt32(ptr0 + 332, len33, true);
      dataView(memory0).setInt32(ptr0 + 328, ptr33, true);
      var {class: v34_0, key: v34_1, reconcile: v34_2, leaseMs: v34_3, maxCallMs: v34_4, reconcileAfterMs: v34_5, escalateAfterMs: v34_6, retentionMs: v34_7, approval: v34_8 } = v25_8;
      var val35 = v34_0;
      let enum35;
      switch (val35) {
        case 'read-only': {
          enum35 = 0;
          break;
        }
        case 'overwriting-write': {
          enum35 = 1;
          break;
        }
        case 'accumulating-write': {
          enum35 = 2;
          break;
        }
        case 'irreversible-external': {
          enum35 = 3;
          break;
        }
        default: {
          if ((v34_0) instanceof Error) {
            console.error(v34_0);
          }
          
          throw new TypeError(`"${val35}" is not one of the cases of effect-class`);
        }
      }
      dataView(memory0).setInt8(ptr0 + 336, enum35, true);
      var variant43 = v34_1;
      if (variant43 === null || variant43=== undefined) {
        dataView(memory0).setInt8(ptr0 + 340, 0, true);
      } else {
        const e = variant43;
        dataView(memory0).setInt8(ptr0 + 340, 1, true);
        var {only: v36_0, ignore: v36_1, identity: v36_2 } = e;
        var variant39 = v36_0;
        if (variant39 === null || variant39=== undefined) {
          dataView(memory0).setInt8(ptr0 + 344, 0, true);
        } else {
          const e = variant39;
          dataView(memory0).setInt8(ptr0 + 344, 1, true);
          var vec38 = e;
          var len38 = vec38.length;
          var result38 = realloc0(0, 0, 4, len38 * 8);
          for (let i = 0; i < vec38.length; i++) {
            const e = vec38[i];
            const base = result38 + i * 8;var ptr37 = utf8Encode(e, realloc0, memory0);
            var len37 = utf8EncodedLen;
            dataView(memory0).setInt32(base + 4, len37, true);
            dataView(memory0).setInt32(base + 0, ptr37, true);
          }
          dataView(memory0).setInt32(ptr0 + 352, len38, true);
          dataView(memory0).setInt32(ptr0 + 348, result38, true);
        }
        var vec41 = v36_1;
        var len41 = vec41.length;
        var result41 = realloc0(0, 0, 4, len41 * 8);
        for (let i = 0; i < vec41.length; i++) {
          const e = vec41[i];
          const base = result41 + i * 8;var ptr40 = utf8Encode(e, realloc0, memory0);
          var len40 = utf8EncodedLen;
          dataView(memory0).setInt32(base + 4, len40, true);
          dataView(memory0).setInt32(base + 0, ptr40, true);
        }
        dataView(memory0).setInt32(ptr0 + 360, len41, true);
        dataView(memory0).setInt32(ptr0 + 356, result41, true);
        var val42 = v36_2;
        let enum42;
        switch (val42) {
          case 'step': {
            enum42 = 0;
            break;
          }
          case 'run': {
            enum42 = 1;
            break;
          }
          case 'scope': {
            enum42 = 2;
            break;
          }
          default: {
            if ((v36_2) instanceof Error) {
              console.error(v36_2);
            }
            
            throw new TypeError(`"${val42}" is not one of the cases of key-identity`);
          }
        }
        dataView(memory0).setInt8(ptr0 + 364, enum42, true);
      }
      var variant45 = v34_2;
      switch (variant45.tag) {
        case 'none': {
          dataView(memory0).setInt8(ptr0 + 368, 0, true);
          break;
        }
        case 'provider-idempotent': {
          dataView(memory0).setInt8(ptr0 + 368, 1, true);
          break;
        }
        case 'lookup': {
          const e = variant45.val;
          dataView(memory0).setInt8(ptr0 + 368, 2, true);
          var ptr44 = utf8Encode(e, realloc0, memory0);
          var len44 = utf8EncodedLen;
          dataView(memory0).setInt32(ptr0 + 376, len44, true);
          dataView(memory0).setInt32(ptr0 + 372, ptr44, true);
          break;
        }
        case 'manual': {
          dataView(memory0).setInt8(ptr0 + 368, 3, true);
          break;
        }
        default: {
          throw new TypeError(`invalid variant tag value \`${JSON.stringify(variant45.tag)}\` (received \`${variant45}\`) specified for \`ReconcilePath\``);
        }
      }
      dataView(memory0).setBigInt64(ptr0 + 384, toUint64(v34_3), true);
      dataView(memory0).setBigInt64(ptr0 + 392, toUint64(v34_4), true);
      dataView(memory0).setBigInt64(ptr0 + 400, toUint64(v34_5), true);
      dataView(memory0).setBigInt64(ptr0 + 408, toUint64(v34_6), true);
      dataView(memory0).setBigInt64(ptr0 + 416, toUint64(v34_7), true);
      var variant49 = v34_8;
      if (variant49 === null || variant49=== undefined) {
        dataView(memory0).setInt8(ptr0 + 424, 0, true);
      } else {
        const e = variant49;
        dataView(memory0).setInt8(ptr0 + 424, 1, true);
        var {when: v46_0, expiresAfterMs: v46_1 } = e;
        var variant48 = v46_0;
        if (variant48 === null || variant48=== undefined) {
          dataView(memory0).setInt8(ptr0 + 432, 0, true);
        } else {
          const e = variant48;
          dataView(memory0).setInt8(ptr0 + 432, 1, true);
          var ptr47 = utf8Encode(e, realloc0, memory0);
          var len47 = utf8EncodedLen;
          dataView(memory0).setInt32(ptr0 + 440, len47, true);
          dataView(memory0).setInt32(ptr0 + 436, ptr47, true);
        }
        dataView(memory0).setBigInt64(ptr0 + 448, toUint64(v46_1), true);
      }
      dataView(memory0).setBigInt64(ptr0 + 456, toUint64(arg2), true);
      const ret = ledger010AsksApproval(ptr0);
      var bool50 = ret;
      return bool50 == 0 ? false : (bool50 == 1 ? true : throwInvalidBool());
    }
    let ledger010DecisionOf;
    
    function decisionOf(arg0) {
      var ptr0 = realloc0(0, 0, 8, 264);
      var {scope: v1_0, key: v1_1, tool: v1_2, runId: v1_3, stepId: v1_4, fingerprint: v1_5, argsCanonical: v1_6, state: v1_7, version: v1_8, attempt: v1_9, owner: v1_10, createdAt: v1_11, updatedAt: v1_12, leaseUntil: v1_13, inDoubtSince: v1_14, nextReconcileAt: v1_15, reconcileAttempts: v1_16, resultJson: v1_17, reason: v1_18, resolvedBy: v1_19, settlement: v1_20, reconcile: v1_21, leaseMs: v1_22, maxCallMs: v1_23, reconcileAfterMs: v1_24, escalateAfterMs: v1_25, retentionMs: v1_26, dueAt: v1_27 } = arg0;
      var ptr2 = utf8Encode(v1_0, realloc0, memory0);
      var len2 = utf8EncodedLen;
      dataView(memory0).setInt32(ptr0 + 4, len2, true);
      dataView(memory0).setInt32(ptr0 + 0, ptr2, true);
      var ptr3 = utf8Encode(v1_1, realloc0, memory0);
      var len3 = utf8EncodedLen;
      dataView(memory0).setInt32(ptr0 + 12, len3, true);
      dataView(memory0).setInt32(ptr0 + 8, ptr3, true);
      var ptr4 = utf8Encode(v1_2, realloc0, memory0);
      var len4 = utf8EncodedLen;
      dataView(memory0).setInt32(ptr0 + 20, len4, true);
      dataView(memory0).setInt32(ptr0 + 16, ptr4, true);
      var ptr5 = utf8Encode(v1_3, realloc0, memory0);
      var len5 = utf8EncodedLen;
      dataView(memory0).setInt32(ptr0 + 28, len5, true);
      dataView(memory0).setInt32(ptr0 + 24, ptr5, true);
      var ptr6 = utf8Encode(v1_4, realloc0, memory0);
      var len6 = utf8EncodedLen;
      dataView(memory0).setInt32(ptr0 + 36, len6, true);
      dataView(memory0).setInt32(ptr0 + 32, ptr6, true);
      var ptr7 = utf8Encode(v1_5, realloc0, memory0);
      var len7 = utf8EncodedLen;
      dataView(memory0).setInt32(ptr0 + 44, len7, true);
      dataView(memory0).setInt32(ptr0 + 40, ptr7, true);
      var ptr8 = utf8Encode(v1_6, realloc0, memory0);
      var len8 = utf8EncodedLen;
      dataView(memory0).setInt32(ptr0 + 52, len8, true);
      dataView(memory0).setInt32(ptr0 + 48, ptr8, true);
      var val9 = v1_7;
      let enum9;
      switch (val9) {
        case 'pending': {
          enum9 = 0;
          break;
        }
        case 'done': {
          enum9 = 1;
          break;
        }
        case 'failed': {
          enum9 = 2;
          break;
        }
        case 'in-doubt': {
          enum9 = 3;
          break;
        }
        case 'escalated': {
          enum9 = 4;
          break;
        }
        case 'awaiting-approval': {
          enum9 = 5;
          break;
        }
        case 'approved': {
          enum9 = 6;
          break;
        }
        case 'denied': {
          enum9 = 7;
          break;
        }
        default: {
          if ((v1_7) instanceof Error) {
            console.error(v1_7);
          }
          
          throw new TypeError(`"${val9}" is not one of the cases of entry-state`);
        }
      }
      dataView(memory0).setInt8(ptr0 + 56, enum9, true);
      dataView(memory0).setBigInt64(ptr0 + 64, toUint64(v1_8), true);
      dataView(memory0).setInt32(ptr0 + 72, toUint32(v1_9), true);
      var ptr10 = utf8Encode(v1_10, realloc0, memory0);
      var len10 = utf8EncodedLen;
      dataView(memory0).setInt32(ptr0 + 80, len10, true);
      dataView(memory0).setInt32(ptr0 + 76, ptr10, true);
      dataView(memory0).setBigInt64(ptr0 + 88, toUint64(v1_11), true);
      dataView(memory0).setBigInt64(ptr0 + 96, toUint64(v1_12), true);
      dataView(memory0).setBigInt64(ptr0 + 104, toUint64(v1_13), true);
      var variant11 = v1_14;
      if (variant11 === null || variant11=== undefined) {
        dataView(memory0).setInt8(ptr0 + 112, 0, true);
      } else {
        const e = variant11;
        dataView(memory0).setInt8(ptr0 + 112, 1, true);
        dataView(memory0).setBigInt64(ptr0 + 120, toUint64(e), true);
      }
      var variant12 = v1_15;
      if (variant12 === null || variant12=== undefined) {
        dataView(memory0).setInt8(ptr0 + 128, 0, true);
      } else {
        const e = variant12;
        dataView(memory0).setInt8(ptr0 + 128, 1, true);
        dataView(memory0).setBigInt64(ptr0 + 136, toUint64(e), true);
      }
      dataView(memory0).setInt32(ptr0 + 144, toUint32(v1_16), true);
      var variant14 = v1_17;
      if (variant14 === null || variant14=== undefined) {
        dataView(memory0).setInt8(ptr0 + 148, 0, true);
      } else {
        const e = variant14;
        dataView(memory0).setInt8(ptr0 + 148, 1, true);
        var ptr13 = utf8Encode(e, realloc0, memory0);
        var len13 = utf8EncodedLen;
        dataView(memory0).setInt32(ptr0 + 156, len13, true);
        dataView(memory0).setInt32(ptr0 + 152, ptr13, true);
      }
      var variant16 = v1_18;
      if (variant16 === null || variant16=== undefined) {
        dataView(memory0).setInt8(ptr0 + 160, 0, true);
      } else {
        const e = variant16;
        dataView(memory0).setInt8(ptr0 + 160, 1, true);
        var ptr15 = utf8Encode(e, realloc0, memory0);
        var len15 = utf8EncodedLen;
        dataView(memory0).setInt32(ptr0 + 168, len15, true);
        dataView(memory0).setInt32(ptr0 + 164, ptr15, true);
      }
      var variant18 = v1_19;
      if (variant18 === null || variant18=== undefined) {
        dataView(memory0).setInt8(ptr0 + 172, 0, true);
      } else {
        const e = variant18;
        dataView(memory0).setInt8(ptr0 + 172, 1, true);
        var ptr17 = utf8Encode(e, realloc0, memory0);
        var len17 = utf8EncodedLen;
        dataView(memory0).setInt32(ptr0 + 180, len17, true);
        dataView(memory0).setInt32(ptr0 + 176, ptr17, true);
      }
      var variant20 = v1_20;
      if (variant20 === null || variant20=== undefined) {
        dataView(memory0).setInt8(ptr0 + 184, 0, true);
      } else {
        const e = variant20;
        dataView(memory0).setInt8(ptr0 + 184, 1, true);
        var ptr19 = utf8Encode(e, realloc0, memory0);
        var len19 = utf8EncodedLen;
        dataView(memory0).setInt32(ptr0 + 192, len19, true);
        dataView(memory0).setInt32(ptr0 + 188, ptr19, true);
      }
      var variant22 = v1_21;
      switch (variant22.tag) {
        case 'none': {
          dataView(memory0).setInt8(ptr0 + 196, 0, true);
          break;
        }
        case 'provider-idempotent': {
          dataView(memory0).setInt8(ptr0 + 196, 1, true);
          break;
        }
        case 'lookup': {
          const e = variant22.val;
          dataView(memory0).setInt8(ptr0 + 196, 2, true);
          var ptr21 = utf8Encode(e, realloc0, memory0);
          var len21 = utf8EncodedLen;
          dataView(memory0).setInt32(ptr0 + 204, len21, true);
          dataView(memory0).setInt32(ptr0 + 200, ptr21, true);
          break;
        }
        case 'manual': {
          dataView(memory0).setInt8(ptr0 + 196, 3, true);
          break;
        }
        default: {
          throw new TypeError(`invalid variant tag value \`${JSON.stringify(variant22.tag)}\` (received \`${variant22}\`) specified for \`ReconcilePath\``);
        }
      }
      dataView(memory0).setBigInt64(ptr0 + 208, toUint64(v1_22), true);
      dataView(memory0).setBigInt64(ptr0 + 216, toUint64(v1_23), true);
      dataView(memory0).setBigInt64(ptr0 + 224, toUint64(v1_24), true);
      dataView(memory0).setBigInt64(ptr0 + 232, toUint64(v1_25), true);
      dataView(memory0).setBigInt64(ptr0 + 240, toUint64(v1_26), true);
      var variant23 = v1_27;
      if (variant23 === null || variant23=== undefined) {
        dataView(memory0).setInt8(ptr0 + 248, 0, true);
      } else {
        const e = variant23;
        dataView(memory0).setInt8(ptr0 + 248, 1, true);
        dataView(memory0).setBigInt64(ptr0 + 256, toUint64(e), true);
      }
      const ret = ledger010DecisionOf(ptr0);
      let variant36;
      switch (dataView(memory0).getUint8(ret + 0, true)) {
        case 0: {
          variant36 = undefined;
          break;
        }
        case 1: {
          let variant35;
          switch (dataView(memory0).getUint8(ret + 8, true)) {
            case 0: {
              var ptr24 = dataView(memory0).getInt32(ret + 16, true);
              var len24 = dataView(memory0).getInt32(ret + 20, true);
              var result24 = utf8Decoder.decode(new Uint8Array(memory0.buffer, ptr24, len24));
              var ptr25 = dataView(memory0).getInt32(ret + 24, true);
              var len25 = dataView(memory0).getInt32(ret + 28, true);
              var result25 = utf8Decoder.decode(new Uint8Array(memory0.buffer, ptr25, len25));
              var ptr26 = dataView(memory0).getInt32(ret + 32, true);
              var len26 = dataView(memory0).getInt32(ret + 36, true);
              var result26 = utf8Decoder.decode(new Uint8Array(memory0.buffer, ptr26, len26));
              var ptr27 = dataView(memory0).getInt32(ret + 40, true);
              var len27 = dataView(memory0).getInt32(ret + 44, true);
              var result27 = utf8Decoder.decode(new Uint8Array(memory0.buffer, ptr27, len27));
              variant35= {
                tag: 'asked',
                val: {
                  scope: result24,
                  key: result25,
                  tool: result26,
                  argsCanonical: result27,
                  version: BigInt.asUintN(64, dataView(memory0).getBigInt64(ret + 48, true)),
                  since: BigInt.asUintN(64, dataView(memory0).getBigInt64(ret + 56, true)),
                }
              };
              break;
            }
            case 1: {
              var ptr28 = dataView(memory0).getInt32(ret + 16, true);
              var len28 = dataView(memory0).getInt32(ret + 20, true);
              var result28 = utf8Decoder.decode(new Uint8Array(memory0.buffer, ptr28, len28));
              var ptr29 = dataView(memory0).getInt32(ret + 24, true);
              var len29 = dataView(memory0).getInt32(ret + 28, true);
              var result29 = utf8Decoder.decode(new Uint8Array(memory0.buffer, ptr29, len29));
              var bool30 = dataView(memory0).getUint8(ret + 32, true);
              variant35= {
                tag: 'approved',
                val: {
                  by: result28,
                  settlement: result29,
                  unused: bool30 == 0 ? false : (bool30 == 1 ? true : throwInvalidBool()),
                }
              };
              break;
            }
            case 2: {
              var ptr31 = dataView(memory0).getInt32(ret + 16, true);
              var len31 = dataView(memory0).getInt32(ret + 20, true);
              var result31 = utf8Decoder.decode(new Uint8Array(memory0.buffer, ptr31, len31));
              var ptr32 = dataView(memory0).getInt32(ret + 24, true);
              var len32 = dataView(memory0).getInt32(ret + 28, true);
              var result32 = utf8Decoder.decode(new Uint8Array(memory0.buffer, ptr32, len32));
              var ptr33 = dataView(memory0).getInt32(ret + 32, true);
              var len33 = dataView(memory0).getInt32(ret + 36, true);
              var result33 = utf8Decoder.decode(new Uint8Array(memory0.buffer, ptr33, len33));
              var ptr34 = dataView(memory0).getInt32(ret + 40, true);
              var len34 = dataView(memory0).getInt32(ret + 44, true);
              var result34 = utf8Decoder.decode(new Uint8Array(memory0.buffer, ptr34, len34));
              variant35= {
                tag: 'denied',
                val: {
                  key: result31,
                  by: result32,
                  reason: result33,
                  settlement: result34,
                }
              };
              break;
            }
            default: {
              throw new TypeError('invalid variant discriminant for HeldDecision');
            }
          }
          variant36 = variant35;
          break;
        }
        default: {
          throw new TypeError('invalid variant discriminant for option');
        }
      }
      const retVal = variant36;
      postReturn12(ret);
      return retVal;
    }
    let ledger010HistoryDecision;
    
    function historyDecision(arg0, arg1) {
      var val0 = arg0;
      let enum0;
      switch (val0) {
        case 'pending': {
          enum0 = 0;
          break;
        }
        case 'done': {
          enum0 = 1;
          break;
        }
        case 'failed': {
          enum0 = 2;
          break;
        }
        case 'in-doubt': {
          enum0 = 3;
          break;
        }
        case 'escalated': {
          enum0 = 4;
          break;
        }
        case 'awaiting-approval': {
          enum0 = 5;
          break;
        }
        case 'approved': {
          enum0 = 6;
          break;
        }
        case 'denied': {
          enum0 = 7;
          break;
        }
        default: {
          if ((arg0) instanceof Error) {
            console.error(arg0);
          }
          
          throw new TypeError(`"${val0}" is not one of the cases of entry-state`);
        }
      }
      var variant2 = arg1;
      let variant2_0;
      let variant2_1;
      let variant2_2;
      if (variant2 === null || variant2=== undefined) {
        variant2_0 = 0;
        variant2_1 = 0;
        variant2_2 = 0;
      } else {
        const e = variant2;
        var ptr1 = utf8Encode(e, realloc0, memory0);
        var len1 = utf8EncodedLen;
        variant2_0 = 1;
        variant2_1 = ptr1;
        variant2_2 = len1;
      }
      const ret = ledger010HistoryDecision(enum0, variant2_0, variant2_1, variant2_2);
      let variant4;
      switch (dataView(memory0).getUint8(ret + 0, true)) {
        case 0: {
          variant4 = undefined;
          break;
        }
        case 1: {
          var bool3 = dataView(memory0).getUint8(ret + 1, true);
          variant4 = bool3 == 0 ? false : (bool3 == 1 ? true : throwInvalidBool());
          break;
        }
        default: {
          throw new TypeError('invalid variant discriminant for option');
        }
      }
      return variant4;
    }
    let ledger010AttentionSince;
    
    function attentionSince(arg0, arg1, arg2) {
      var val0 = arg0;
      let enum0;
      switch (val0) {
        case 'pending': {
          enum0 = 0;
          break;
        }
        case 'done': {
          enum0 = 1;
          break;
        }
        case 'failed': {
          enum0 = 2;
          break;
        }
        case 'in-doubt': {
          enum0 = 3;
          break;
        }
        case 'escalated': {
          enum0 = 4;
          break;
        }
        case 'awaiting-approval': {
          enum0 = 5;
          break;
        }
        case 'approved': {
          enum0 = 6;
          break;
        }
        case 'denied': {
          enum0 = 7;
          break;
        }
        default: {
          if ((arg0) instanceof Error) {
            console.error(arg0);
          }
          
          throw new TypeError(`"${val0}" is not one of the cases of entry-state`);
        }
      }
      var variant1 = arg1;
      let variant1_0;
      let variant1_1;
      if (variant1 === null || variant1=== undefined) {
        variant1_0 = 0;
        variant1_1 = 0n;
      } else {
        const e = variant1;
        variant1_0 = 1;
        variant1_1 = toUint64(e);
      }
      const ret = ledger010AttentionSince(enum0, variant1_0, variant1_1, toUint64(arg2));
      return BigInt.asUintN(64, ret);
    }
    let effect010Defaults;
    
    function defaults() {
      const ret = effect010Defaults();
      let enum0;
      switch (dataView(memory0).getUint8(ret + 72, true)) {
        case 0: {
          enum0 = 'read-only';
          break;
        }
        case 1: {
          enum0 = 'overwriting-write';
          break;
        }
        case 2: {
          enum0 = 'accumulating-write';
          break;
        }
        case 3: {
          enum0 = 'irreversible-external';
          break;
        }
        default: {
          throw new TypeError('invalid discriminant specified for EffectClass');
        }
      }
      let variant7;
      switch (dataView(memory0).getUint8(ret + 76, true)) {
        case 0: {
          variant7 = undefined;
          break;
        }
        case 1: {
          let variant3;
          switch (dataView(memory0).getUint8(ret + 80, true)) {
            case 0: {
              variant3 = undefined;
              break;
            }
            case 1: {
              var len2 = dataView(memory0).getInt32(ret + 88, true);
              var base2 = dataView(memory0).getInt32(ret + 84, true);
              var result2 = [];
              for (let i = 0; i < len2; i++) {
                const base = base2 + i * 8;
                var ptr1 = dataView(memory0).getInt32(base + 0, true);
                var len1 = dataView(memory0).getInt32(base + 4, true);
                var result1 = utf8Decoder.decode(new Uint8Array(memory0.buffer, ptr1, len1));
                result2.push(result1);
              }
              variant3 = result2;
              break;
            }
            default: {
              throw new TypeError('invalid variant discriminant for option');
            }
          }
          var len5 = dataView(memory0).getInt32(ret + 96, true);
          var base5 = dataView(memory0).getInt32(ret + 92, true);
          var result5 = [];
          for (let i = 0; i < len5; i++) {
            const base = base5 + i * 8;
            var ptr4 = dataView(memory0).getInt32(base + 0, true);
            var len4 = dataView(memory0).getInt32(base + 4, true);
            var result4 = utf8Decoder.decode(new Uint8Array(memory0.buffer, ptr4, len4));
            result5.push(result4);
          }
          let enum6;
          switch (dataView(memory0).getUint8(ret + 100, true)) {
            case 0: {
              enum6 = 'step';
              break;
            }
            case 1: {
              enum6 = 'run';
              break;
            }
            case 2: {
              enum6 = 'scope';
              break;
            }
            default: {
              throw new TypeError('invalid discriminant specified for KeyIdentity');
            }
          }
          variant7 = {
            only: variant3,
            ignore: result5,
            identity: enum6,
          };
          break;
        }
        default: {
          throw new TypeError('invalid variant discriminant for option');
        }
      }
      let variant9;
      switch (dataView(memory0).getUint8(ret + 104, true)) {
        case 0: {
          variant9= {
            tag: 'none',
          };
          break;
        }
        case 1: {
          variant9= {
            tag: 'provider-idempotent',
          };
          break;
        }
        case 2: {
          var ptr8 = dataView(memory0).getInt32(ret + 108, true);
          var len8 = dataView(memory0).getInt32(ret + 112, true);
          var result8 = utf8Decoder.decode(new Uint8Array(memory0.buffer, ptr8, len8));
          variant9= {
            tag: 'lookup',
            val: result8
          };
          break;
        }
        case 3: {
          variant9= {
            tag: 'manual',
          };
          break;
        }
        default: {
          throw new TypeError('invalid variant discriminant for ReconcilePath');
        }
      }
      let variant12;
      switch (dataView(memory0).getUint8(ret + 160, true)) {
        case 0: {
          variant12 = undefined;
          break;
        }
        case 1: {
          let variant11;
          switch (dataView(memory0).getUint8(ret + 168, true)) {
            case 0: {
              variant11 = undefined;
              break;
            }
            case 1: {
              var ptr10 = dataView(memory0).getInt32(ret + 172, true);
              var len10 = dataView(memory0).getInt32(ret + 176, true);
              var result10 = utf8Decoder.decode(new Uint8Array(memory0.buffer, ptr10, len10));
              variant11 = result10;
              break;
            }
            default: {
              throw new TypeError('invalid variant discriminant for option');
            }
          }
          variant12 = {
            when: variant11,
            expiresAfterMs: BigInt.asUintN(64, dataView(memory0).getBigInt64(ret + 184, true)),
          };
          break;
        }
        default: {
          throw new TypeError('invalid variant discriminant for option');
        }
      }
      const retVal = {
        waitMs: BigInt.asUintN(64, dataView(memory0).getBigInt64(ret + 0, true)),
        maxAttempts: dataView(memory0).getInt32(ret + 8, true) >>> 0,
        settleEveryMs: BigInt.asUintN(64, dataView(memory0).getBigInt64(ret + 16, true)),
        settleTimeoutMs: BigInt.asUintN(64, dataView(memory0).getBigInt64(ret + 24, true)),
        dueBatch: dataView(memory0).getInt32(ret + 32, true) >>> 0,
        inDoubtAfterMs: BigInt.asUintN(64, dataView(memory0).getBigInt64(ret + 40, true)),
        pageSize: dataView(memory0).getInt32(ret + 48, true) >>> 0,
        providerWaitMs: BigInt.asUintN(64, dataView(memory0).getBigInt64(ret + 56, true)),
        providerMaxBody: BigInt.asUintN(64, dataView(memory0).getBigInt64(ret + 64, true)),
        policy: {
          class: enum0,
          key: variant7,
          reconcile: variant9,
          leaseMs: BigInt.asUintN(64, dataView(memory0).getBigInt64(ret + 120, true)),
          maxCallMs: BigInt.asUintN(64, dataView(memory0).getBigInt64(ret + 128, true)),
          reconcileAfterMs: BigInt.asUintN(64, dataView(memory0).getBigInt64(ret + 136, true)),
          escalateAfterMs: BigInt.asUintN(64, dataView(memory0).getBigInt64(ret + 144, true)),
          retentionMs: BigInt.asUintN(64, dataView(memory0).getBigInt64(ret + 152, true)),
          approval: variant12,
        },
      };
      postReturn13(ret);
      return retVal;
    }
    let effect010Run;
    
    function run(arg0) {
      var val0 = arg0;
      var len0 = val0.byteLength;
      var ptr0 = realloc0(0, 0, 1, len0 * 1);
      var src0 = new Uint8Array(val0.buffer || val0, val0.byteOffset, len0 * 1);
      (new Uint8Array(memory0.buffer, ptr0, len0 * 1)).set(src0);
      const ret = effect010Run(ptr0, len0);
      var ptr1 = dataView(memory0).getInt32(ret + 0, true);
      var len1 = dataView(memory0).getInt32(ret + 4, true);
      var result1 = new Uint8Array(memory0.buffer.slice(ptr1, ptr1 + len1 * 1));
      const retVal = result1;
      postReturn14(ret);
      return retVal;
    }
    let provider010Admit;
    
    function admit(arg0, arg1, arg2) {
      var ptr0 = realloc0(0, 0, 4, 80);
      var ptr1 = utf8Encode(arg0, realloc0, memory0);
      var len1 = utf8EncodedLen;
      dataView(memory0).setInt32(ptr0 + 4, len1, true);
      dataView(memory0).setInt32(ptr0 + 0, ptr1, true);
      var {tool: v2_0, policyJson: v2_1, required: v2_2 } = arg1;
      var ptr3 = utf8Encode(v2_0, realloc0, memory0);
      var len3 = utf8EncodedLen;
      dataView(memory0).setInt32(ptr0 + 12, len3, true);
      dataView(memory0).setInt32(ptr0 + 8, ptr3, true);
      var ptr4 = utf8Encode(v2_1, realloc0, memory0);
      var len4 = utf8EncodedLen;
      dataView(memory0).setInt32(ptr0 + 20, len4, true);
      dataView(memory0).setInt32(ptr0 + 16, ptr4, true);
      dataView(memory0).setInt8(ptr0 + 24, v2_2 ? 1 : 0, true);
      var variant18 = arg2;
      switch (variant18.tag) {
        case 'http': {
          const e = variant18.val;
          dataView(memory0).setInt8(ptr0 + 28, 0, true);
          var {method: v5_0, path: v5_1, query: v5_2, contentType: v5_3, body: v5_4, keys: v5_5 } = e;
          var ptr6 = utf8Encode(v5_0, realloc0, memory0);
          var len6 = utf8EncodedLen;
          dataView(memory0).setInt32(ptr0 + 36, len6, true);
          dataView(memory0).setInt32(ptr0 + 32, ptr6, true);
          var ptr7 = utf8Encode(v5_1, realloc0, memory0);
          var len7 = utf8EncodedLen;
          dataView(memory0).setInt32(ptr0 + 44, len7, true);
          dataView(memory0).setInt32(ptr0 + 40, ptr7, true);
          var ptr8 = utf8Encode(v5_2, realloc0, memory0);
          var len8 = utf8EncodedLen;
          dataView(memory0).setInt32(ptr0 + 52, len8, true);
          dataView(memory0).setInt32(ptr0 + 48, ptr8, true);
          var ptr9 = utf8Encode(v5_3, realloc0, memory0);
          var len9 = utf8EncodedLen;
          dataView(memory0).setInt32(ptr0 + 60, len9, true);
          dataView(memory0).setInt32(ptr0 + 56, ptr9, true);
          var val10 = v5_4;
          var len10 = val10.byteLength;
          var ptr10 = realloc0(0, 0, 1, len10 * 1);
          var src10 = new Uint8Array(val10.buffer || val10, val10.byteOffset, len10 * 1);
          (new Uint8Array(memory0.buffer, ptr10, len10 * 1)).set(src10);
          dataView(memory0).setInt32(ptr0 + 68, len10, true);
          dataView(memory0).setInt32(ptr0 + 64, ptr10, true);
          var vec12 = v5_5;
          var len12 = vec12.length;
          var result12 = realloc0(0, 0, 4, len12 * 8);
          for (let i = 0; i < vec12.length; i++) {
            const e = vec12[i];
            const base = result12 + i * 8;var ptr11 = utf8Encode(e, realloc0, memory0);
            var len11 = utf8EncodedLen;
            dataView(memory0).setInt32(base + 4, len11, true);
            dataView(memory0).setInt32(base + 0, ptr11, true);
          }
          dataView(memory0).setInt32(ptr0 + 76, len12, true);
          dataView(memory0).setInt32(ptr0 + 72, result12, true);
          break;
        }
        case 'mcp': {
          const e = variant18.val;
          dataView(memory0).setInt8(ptr0 + 28, 1, true);
          var {argumentsJson: v13_0, metaJson: v13_1, paramsKey: v13_2 } = e;
          var ptr14 = utf8Encode(v13_0, realloc0, memory0);
          var len14 = utf8EncodedLen;
          dataView(memory0).setInt32(ptr0 + 36, len14, true);
          dataView(memory0).setInt32(ptr0 + 32, ptr14, true);
          var ptr15 = utf8Encode(v13_1, realloc0, memory0);
          var len15 = utf8EncodedLen;
          dataView(memory0).setInt32(ptr0 + 44, len15, true);
          dataView(memory0).setInt32(ptr0 + 40, ptr15, true);
          var variant17 = v13_2;
          if (variant17 === null || variant17=== undefined) {
            dataView(memory0).setInt8(ptr0 + 48, 0, true);
          } else {
            const e = variant17;
            dataView(memory0).setInt8(ptr0 + 48, 1, true);
            var ptr16 = utf8Encode(e, realloc0, memory0);
            var len16 = utf8EncodedLen;
            dataView(memory0).setInt32(ptr0 + 56, len16, true);
            dataView(memory0).setInt32(ptr0 + 52, ptr16, true);
          }
          break;
        }
        default: {
          throw new TypeError(`invalid variant tag value \`${JSON.stringify(variant18.tag)}\` (received \`${variant18}\`) specified for \`Request\``);
        }
      }
      const ret = provider010Admit(ptr0);
      let variant50;
      switch (dataView(memory0).getUint8(ret + 0, true)) {
        case 0: {
          let variant48;
          switch (dataView(memory0).getUint8(ret + 8, true)) {
            case 0: {
              variant48= {
                tag: 'pass',
              };
              break;
            }
            case 1: {
              var ptr19 = dataView(memory0).getInt32(ret + 16, true);
              var len19 = dataView(memory0).getInt32(ret + 20, true);
              var result19 = utf8Decoder.decode(new Uint8Array(memory0.buffer, ptr19, len19));
              var ptr20 = dataView(memory0).getInt32(ret + 24, true);
              var len20 = dataView(memory0).getInt32(ret + 28, true);
              var result20 = utf8Decoder.decode(new Uint8Array(memory0.buffer, ptr20, len20));
              var ptr21 = dataView(memory0).getInt32(ret + 32, true);
              var len21 = dataView(memory0).getInt32(ret + 36, true);
              var result21 = utf8Decoder.decode(new Uint8Array(memory0.buffer, ptr21, len21));
              var ptr22 = dataView(memory0).getInt32(ret + 40, true);
              var len22 = dataView(memory0).getInt32(ret + 44, true);
              var result22 = utf8Decoder.decode(new Uint8Array(memory0.buffer, ptr22, len22));
              var ptr23 = dataView(memory0).getInt32(ret + 48, true);
              var len23 = dataView(memory0).getInt32(ret + 52, true);
              var result23 = utf8Decoder.decode(new Uint8Array(memory0.buffer, ptr23, len23));
              var ptr24 = dataView(memory0).getInt32(ret + 56, true);
              var len24 = dataView(memory0).getInt32(ret + 60, true);
              var result24 = utf8Decoder.decode(new Uint8Array(memory0.buffer, ptr24, len24));
              var ptr25 = dataView(memory0).getInt32(ret + 64, true);
              var len25 = dataView(memory0).getInt32(ret + 68, true);
              var result25 = utf8Decoder.decode(new Uint8Array(memory0.buffer, ptr25, len25));
              let enum26;
              switch (dataView(memory0).getUint8(ret + 72, true)) {
                case 0: {
                  enum26 = 'read-only';
                  break;
                }
                case 1: {
                  enum26 = 'overwriting-write';
                  break;
                }
                case 2: {
                  enum26 = 'accumulating-write';
                  break;
                }
                case 3: {
                  enum26 = 'irreversible-external';
                  break;
                }
                default: {
                  throw new TypeError('invalid discriminant specified for EffectClass');
                }
              }
              let variant33;
              switch (dataView(memory0).getUint8(ret + 76, true)) {
                case 0: {
                  variant33 = undefined;
                  break;
                }
                case 1: {
                  let variant29;
                  switch (dataView(memory0).getUint8(ret + 80, true)) {
                    case 0: {
                      variant29 = undefined;
                      break;
                    }
                    case 1: {
                      var len28 = dataView(memory0).getInt32(ret + 88, true);
                      var base28 = dataView(memory0).getInt32(ret + 84, true);
                      var result28 = [];
                      for (let i = 0; i < len28; i++) {
                        const base = base28 + i * 8;
                        var ptr27 = dataView(memory0).getInt32(base + 0, true);
                        var len27 = dataView(memory0).getInt32(base + 4, true);
                        var result27 = utf8Decoder.decode(new Uint8Array(memory0.buffer, ptr27, len27));
                        result28.push(result27);
                      }
                      variant29 = result28;
                      break;
                    }
                    default: {
                      throw new TypeError('invalid variant discriminant for option');
                    }
                  }
                  var len31 = dataView(memory0).getInt32(ret + 96, true);
                  var base31 = dataView(memory0).getInt32(ret + 92, true);
                  var result31 = [];
                  for (let i = 0; i < len31; i++) {
                    const base = base31 + i * 8;
                    var ptr30 = dataView(memory0).getInt32(base + 0, true);
                    var len30 = dataView(memory0).getInt32(base + 4, true);
                    var result30 = utf8Decoder.decode(new Uint8Array(memory0.buffer, ptr30, len30));
                    result31.push(result30);
                  }
                  let enum32;
                  switch (dataView(memory0).getUint8(ret + 100, true)) {
                    case 0: {
                      enum32 = 'step';
                      break;
                    }
                    case 1: {
                      enum32 = 'run';
                      break;
                    }
                    case 2: {
                      enum32 = 'scope';
                      break;
                    }
                    default: {
                      throw new TypeError('invalid discriminant specified for KeyIdentity');
                    }
                  }
                  variant33 = {
                    only: variant29,
                    ignore: result31,
                    identity: enum32,
                  };
                  break;
                }
                default: {
                  throw new TypeError('invalid variant discriminant for option');
                }
              }
              let variant35;
              switch (dataView(memory0).getUint8(ret + 104, true)) {
                case 0: {
                  variant35= {
                    tag: 'none',
                  };
                  break;
                }
                case 1: {
                  variant35= {
                    tag: 'provider-idempotent',
                  };
                  break;
                }
                case 2: {
                  var ptr34 = dataView(memory0).getInt32(ret + 108, true);
                  var len34 = dataView(memory0).getInt32(ret + 112, true);
                  var result34 = utf8Decoder.decode(new Uint8Array(memory0.buffer, ptr34, len34));
                  variant35= {
                    tag: 'lookup',
                    val: result34
                  };
                  break;
                }
                case 3: {
                  variant35= {
                    tag: 'manual',
                  };
                  break;
                }
                default: {
                  throw new TypeError('invalid variant discriminant for ReconcilePath');
                }
              }
              let variant38;
              switch (dataView(memory0).getUint8(ret + 160, true)) {
                case 0: {
                  variant38 = undefined;
                  break;
                }
                case 1: {
                  let variant37;
                  switch (dataView(memory0).getUint8(ret + 168, true)) {
                    case 0: {
                      variant37 = undefined;
                      break;
                    }
                    case 1: {
                      var ptr36 = dataView(memory0).getInt32(ret + 172, true);
                      var len36 = dataView(memory0).getInt32(ret + 176, true);
                      var result36 = utf8Decoder.decode(new Uint8Array(memory0.buffer, ptr36, len36));
                      variant37 = result36;
                      break;
                    }
                    default: {
                      throw new TypeError('invalid variant discriminant for option');
                    }
                  }
                  variant38 = {
                    when: variant37,
                    expiresAfterMs: BigInt.asUintN(64, dataView(memory0).getBigInt64(ret + 184, true)),
                  };
                  break;
                }
                default: {
                  throw new TypeError('invalid variant discriminant for option');
                }
              }
              variant48= {
                tag: 'keyed',
                val: {
                  clientKey: result19,
                  key: result20,
                  intent: {
                    scope: result21,
                    runId: result22,
                    stepId: result23,
                    tool: result24,
                    argsJson: result25,
                  },
                  policy: {
                    class: enum26,
                    key: variant33,
                    reconcile: variant35,
                    leaseMs: BigInt.asUintN(64, dataView(memory0).getBigInt64(ret + 120, true)),
                    maxCallMs: BigInt.asUintN(64, dataView(memory0).getBigInt64(ret + 128, true)),
                    reconcileAfterMs: BigInt.asUintN(64, dataView(memory0).getBigInt64(ret + 136, true)),
                    escalateAfterMs: BigInt.asUintN(64, dataView(memory0).getBigInt64(ret + 144, true)),
                    retentionMs: BigInt.asUintN(64, dataView(memory0).getBigInt64(ret + 152, true)),
                    approval: variant38,
                  },
                }
              };
              break;
            }
            case 2: {
              var ptr39 = dataView(memory0).getInt32(ret + 20, true);
              var len39 = dataView(memory0).getInt32(ret + 24, true);
              var result39 = utf8Decoder.decode(new Uint8Array(memory0.buffer, ptr39, len39));
              var ptr40 = dataView(memory0).getInt32(ret + 28, true);
              var len40 = dataView(memory0).getInt32(ret + 32, true);
              var result40 = utf8Decoder.decode(new Uint8Array(memory0.buffer, ptr40, len40));
              var ptr41 = dataView(memory0).getInt32(ret + 36, true);
              var len41 = dataView(memory0).getInt32(ret + 40, true);
              var result41 = utf8Decoder.decode(new Uint8Array(memory0.buffer, ptr41, len41));
              let variant43;
              switch (dataView(memory0).getUint8(ret + 44, true)) {
                case 0: {
                  variant43 = undefined;
                  break;
                }
                case 1: {
                  var ptr42 = dataView(memory0).getInt32(ret + 48, true);
                  var len42 = dataView(memory0).getInt32(ret + 52, true);
                  var result42 = utf8Decoder.decode(new Uint8Array(memory0.buffer, ptr42, len42));
                  variant43 = result42;
                  break;
                }
                default: {
                  throw new TypeError('invalid variant discriminant for option');
                }
              }
              let variant45;
              switch (dataView(memory0).getUint8(ret + 56, true)) {
                case 0: {
                  variant45 = undefined;
                  break;
                }
                case 1: {
                  var ptr44 = dataView(memory0).getInt32(ret + 60, true);
                  var len44 = dataView(memory0).getInt32(ret + 64, true);
                  var result44 = utf8Decoder.decode(new Uint8Array(memory0.buffer, ptr44, len44));
                  variant45 = result44;
                  break;
                }
                default: {
                  throw new TypeError('invalid variant discriminant for option');
                }
              }
              let variant46;
              switch (dataView(memory0).getUint8(ret + 72, true)) {
                case 0: {
                  variant46 = undefined;
                  break;
                }
                case 1: {
                  variant46 = BigInt.asUintN(64, dataView(memory0).getBigInt64(ret + 80, true));
                  break;
                }
                default: {
                  throw new TypeError('invalid variant discriminant for option');
                }
              }
              var ptr47 = dataView(memory0).getInt32(ret + 88, true);
              var len47 = dataView(memory0).getInt32(ret + 92, true);
              var result47 = utf8Decoder.decode(new Uint8Array(memory0.buffer, ptr47, len47));
              variant48= {
                tag: 'refuse',
                val: {
                  status: clampGuest(dataView(memory0).getUint16(ret + 16, true), 0, 65535),
                  kind: result39,
                  title: result40,
                  detail: result41,
                  pointer: variant43,
                  part: variant45,
                  retryAfterS: variant46,
                  problemJson: result47,
                }
              };
              break;
            }
            default: {
              throw new TypeError('invalid variant discriminant for Admission');
            }
          }
          variant50= {
            tag: 'ok',
            val: variant48
          };
          break;
        }
        case 1: {
          var ptr49 = dataView(memory0).getInt32(ret + 8, true);
          var len49 = dataView(memory0).getInt32(ret + 12, true);
          var result49 = utf8Decoder.decode(new Uint8Array(memory0.buffer, ptr49, len49));
          variant50= {
            tag: 'err',
            val: result49
          };
          break;
        }
        default: {
          throw new TypeError('invalid variant discriminant for expected');
        }
      }
      const retVal = variant50;
      postReturn15(ret);
      if (typeof retVal === 'object' && retVal.tag === 'err') {
        throw new ComponentError(retVal.val);
      }
      return retVal.val;
    }
    let provider010Oversized;
    
    function oversized(arg0) {
      const ret = provider010Oversized(toUint64(arg0));
      var ptr0 = dataView(memory0).getInt32(ret + 4, true);
      var len0 = dataView(memory0).getInt32(ret + 8, true);
      var result0 = utf8Decoder.decode(new Uint8Array(memory0.buffer, ptr0, len0));
      var ptr1 = dataView(memory0).getInt32(ret + 12, true);
      var len1 = dataView(memory0).getInt32(ret + 16, true);
      var result1 = utf8Decoder.decode(new Uint8Array(memory0.buffer, ptr1, len1));
      var ptr2 = dataView(memory0).getInt32(ret + 20, true);
      var len2 = dataView(memory0).getInt32(ret + 24, true);
      var result2 = utf8Decoder.decode(new Uint8Array(memory0.buffer, ptr2, len2));
      let variant4;
      switch (dataView(memory0).getUint8(ret + 28, true)) {
        case 0: {
          variant4 = undefined;
          break;
        }
        case 1: {
          var ptr3 = dataView(memory0).getInt32(ret + 32, true);
          var len3 = dataView(memory0).getInt32(ret + 36, true);
          var result3 = utf8Decoder.decode(new Uint8Array(memory0.buffer, ptr3, len3));
          variant4 = result3;
          break;
        }
        default: {
          throw new TypeError('invalid variant discriminant for option');
        }
      }
      let variant6;
      switch (dataView(memory0).getUint8(ret + 40, true)) {
        case 0: {
          variant6 = undefined;
          break;
        }
        case 1: {
          var ptr5 = dataView(memory0).getInt32(ret + 44, true);
          var len5 = dataView(memory0).getInt32(ret + 48, true);
          var result5 = utf8Decoder.decode(new Uint8Array(memory0.buffer, ptr5, len5));
          variant6 = result5;
          break;
        }
        default: {
          throw new TypeError('invalid variant discriminant for option');
        }
      }
      let variant7;
      switch (dataView(memory0).getUint8(ret + 56, true)) {
        case 0: {
          variant7 = undefined;
          break;
        }
        case 1: {
          variant7 = BigInt.asUintN(64, dataView(memory0).getBigInt64(ret + 64, true));
          break;
        }
        default: {
          throw new TypeError('invalid variant discriminant for option');
        }
      }
      var ptr8 = dataView(memory0).getInt32(ret + 72, true);
      var len8 = dataView(memory0).getInt32(ret + 76, true);
      var result8 = utf8Decoder.decode(new Uint8Array(memory0.buffer, ptr8, len8));
      const retVal = {
        status: clampGuest(dataView(memory0).getUint16(ret + 0, true), 0, 65535),
        kind: result0,
        title: result1,
        detail: result2,
        pointer: variant4,
        part: variant6,
        retryAfterS: variant7,
        problemJson: result8,
      };
      postReturn16(ret);
      return retVal;
    }
    let provider010McpRefusal;
    
    function mcpRefusal(arg0, arg1) {
      var ptr0 = realloc0(0, 0, 8, 96);
      var {status: v1_0, kind: v1_1, title: v1_2, detail: v1_3, pointer: v1_4, part: v1_5, retryAfterS: v1_6, problemJson: v1_7 } = arg0;
      dataView(memory0).setInt16(ptr0 + 0, toUint16(v1_0), true);
      var ptr2 = utf8Encode(v1_1, realloc0, memory0);
      var len2 = utf8EncodedLen;
      dataView(memory0).setInt32(ptr0 + 8, len2, true);
      dataView(memory0).setInt32(ptr0 + 4, ptr2, true);
      var ptr3 = utf8Encode(v1_2, realloc0, memory0);
      var len3 = utf8EncodedLen;
      dataView(memory0).setInt32(ptr0 + 16, len3, true);
      dataView(memory0).setInt32(ptr0 + 12, ptr3, true);
      var ptr4 = utf8Encode(v1_3, realloc0, memory0);
      var len4 = utf8EncodedLen;
      dataView(memory0).setInt32(ptr0 + 24, len4, true);
      dataView(memory0).setInt32(ptr0 + 20, ptr4, true);
      var variant6 = v1_4;
      if (variant6 === null || variant6=== undefined) {
        dataView(memory0).setInt8(ptr0 + 28, 0, true);
      } else {
        const e = variant6;
        dataView(memory0).setInt8(ptr0 + 28, 1, true);
        var ptr5 = utf8Encode(e, realloc0, memory0);
        var len5 = utf8EncodedLen;
        dataView(memory0).setInt32(ptr0 + 36, len5, true);
        dataView(memory0).setInt32(ptr0 + 32, ptr5, true);
      }
      var variant8 = v1_5;
      if (variant8 === null || variant8=== undefined) {
        dataView(memory0).setInt8(ptr0 + 40, 0, true);
      } else {
        const e = variant8;
        dataView(memory0).setInt8(ptr0 + 40, 1, true);
        var ptr7 = utf8Encode(e, realloc0, memory0);
        var len7 = utf8EncodedLen;
        dataView(memory0).setInt32(ptr0 + 48, len7, true);
        dataView(memory0).setInt32(ptr0 + 44, ptr7, true);
      }
      var variant9 = v1_6;
      if (variant9 === null || variant9=== undefined) {
        dataView(memory0).setInt8(ptr0 + 56, 0, true);
      } else {
        const e = variant9;
        dataView(memory0).setInt8(ptr0 + 56, 1, true);
        dataView(memory0).setBigInt64(ptr0 + 64, toUint64(e), true);
      }
      var ptr10 = utf8Encode(v1_7, realloc0, memory0);
      var len10 = utf8EncodedLen;
      dataView(memory0).setInt32(ptr0 + 76, len10, true);
      dataView(memory0).setInt32(ptr0 + 72, ptr10, true);
      var variant12 = arg1;
      if (variant12 === null || variant12=== undefined) {
        dataView(memory0).setInt8(ptr0 + 80, 0, true);
      } else {
        const e = variant12;
        dataView(memory0).setInt8(ptr0 + 80, 1, true);
        var ptr11 = utf8Encode(e, realloc0, memory0);
        var len11 = utf8EncodedLen;
        dataView(memory0).setInt32(ptr0 + 88, len11, true);
        dataView(memory0).setInt32(ptr0 + 84, ptr11, true);
      }
      const ret = provider010McpRefusal(ptr0);
      var ptr13 = dataView(memory0).getInt32(ret + 0, true);
      var len13 = dataView(memory0).getInt32(ret + 4, true);
      var result13 = utf8Decoder.decode(new Uint8Array(memory0.buffer, ptr13, len13));
      const retVal = result13;
      postReturn14(ret);
      return retVal;
    }
    let provider010CheckOperation;
    
    function checkOperation(arg0) {
      var {tool: v0_0, policyJson: v0_1, required: v0_2 } = arg0;
      var ptr1 = utf8Encode(v0_0, realloc0, memory0);
      var len1 = utf8EncodedLen;
      var ptr2 = utf8Encode(v0_1, realloc0, memory0);
      var len2 = utf8EncodedLen;
      const ret = provider010CheckOperation(ptr1, len1, ptr2, len2, v0_2 ? 1 : 0);
      let variant17;
      switch (dataView(memory0).getUint8(ret + 0, true)) {
        case 0: {
          let enum3;
          switch (dataView(memory0).getUint8(ret + 8, true)) {
            case 0: {
              enum3 = 'read-only';
              break;
            }
            case 1: {
              enum3 = 'overwriting-write';
              break;
            }
            case 2: {
              enum3 = 'accumulating-write';
              break;
            }
            case 3: {
              enum3 = 'irreversible-external';
              break;
            }
            default: {
              throw new TypeError('invalid discriminant specified for EffectClass');
            }
          }
          let variant10;
          switch (dataView(memory0).getUint8(ret + 12, true)) {
            case 0: {
              variant10 = undefined;
              break;
            }
            case 1: {
              let variant6;
              switch (dataView(memory0).getUint8(ret + 16, true)) {
                case 0: {
                  variant6 = undefined;
                  break;
                }
                case 1: {
                  var len5 = dataView(memory0).getInt32(ret + 24, true);
                  var base5 = dataView(memory0).getInt32(ret + 20, true);
                  var result5 = [];
                  for (let i = 0; i < len5; i++) {
                    const base = base5 + i * 8;
                    var ptr4 = dataView(memory0).getInt32(base + 0, true);
                    var len4 = dataView(memory0).getInt32(base + 4, true);
                    var result4 = utf8Decoder.decode(new Uint8Array(memory0.buffer, ptr4, len4));
                    result5.push(result4);
                  }
                  variant6 = result5;
                  break;
                }
                default: {
                  throw new TypeError('invalid variant discriminant for option');
                }
              }
              var len8 = dataView(memory0).getInt32(ret + 32, true);
              var base8 = dataView(memory0).getInt32(ret + 28, true);
              var result8 = [];
              for (let i = 0; i < len8; i++) {
                const base = base8 + i * 8;
                var ptr7 = dataView(memory0).getInt32(base + 0, true);
                var len7 = dataView(memory0).getInt32(base + 4, true);
                var result7 = utf8Decoder.decode(new Uint8Array(memory0.buffer, ptr7, len7));
                result8.push(result7);
              }
              let enum9;
              switch (dataView(memory0).getUint8(ret + 36, true)) {
                case 0: {
                  enum9 = 'step';
                  break;
                }
                case 1: {
                  enum9 = 'run';
                  break;
                }
                case 2: {
                  enum9 = 'scope';
                  break;
                }
                default: {
                  throw new TypeError('invalid discriminant specified for KeyIdentity');
                }
              }
              variant10 = {
                only: variant6,
                ignore: result8,
                identity: enum9,
              };
              break;
            }
            default: {
              throw new TypeError('invalid variant discriminant for option');
            }
          }
          let variant12;
          switch (dataView(memory0).getUint8(ret + 40, true)) {
            case 0: {
              variant12= {
                tag: 'none',
              };
              break;
            }
            case 1: {
              variant12= {
                tag: 'provider-idempotent',
              };
              break;
            }
            case 2: {
              var ptr11 = dataView(memory0).getInt32(ret + 44, true);
              var len11 = dataView(memory0).getInt32(ret + 48, true);
              var result11 = utf8Decoder.decode(new Uint8Array(memory0.buffer, ptr11, len11));
              variant12= {
                tag: 'lookup',
                val: result11
              };
              break;
            }
            case 3: {
              variant12= {
                tag: 'manual',
              };
              break;
            }
            default: {
              throw new TypeError('invalid variant discriminant for ReconcilePath');
            }
          }
          let variant15;
          switch (dataView(memory0).getUint8(ret + 96, true)) {
            case 0: {
              variant15 = undefined;
              break;
            }
            case 1: {
              let variant14;
              switch (dataView(memory0).getUint8(ret + 104, true)) {
                case 0: {
                  variant14 = undefined;
                  break;
                }
                case 1: {
                  var ptr13 = dataView(memory0).getInt32(ret + 108, true);
                  var len13 = dataView(memory0).getInt32(ret + 112, true);
                  var result13 = utf8Decoder.decode(new Uint8Array(memory0.buffer, ptr13, len13));
                  variant14 = result13;
                  break;
                }
                default: {
                  throw new TypeError('invalid variant discriminant for option');
                }
              }
              variant15 = {
                when: variant14,
                expiresAfterMs: BigInt.asUintN(64, dataView(memory0).getBigInt64(ret + 120, true)),
              };
              break;
            }
            default: {
              throw new TypeError('invalid variant discriminant for option');
            }
          }
          variant17= {
            tag: 'ok',
            val: {
              class: enum3,
              key: variant10,
              reconcile: variant12,
              leaseMs: BigInt.asUintN(64, dataView(memory0).getBigInt64(ret + 56, true)),
              maxCallMs: BigInt.asUintN(64, dataView(memory0).getBigInt64(ret + 64, true)),
              reconcileAfterMs: BigInt.asUintN(64, dataView(memory0).getBigInt64(ret + 72, true)),
              escalateAfterMs: BigInt.asUintN(64, dataView(memory0).getBigInt64(ret + 80, true)),
              retentionMs: BigInt.asUintN(64, dataView(memory0).getBigInt64(ret + 88, true)),
              approval: variant15,
            }
          };
          break;
        }
        case 1: {
          var ptr16 = dataView(memory0).getInt32(ret + 8, true);
          var len16 = dataView(memory0).getInt32(ret + 12, true);
          var result16 = utf8Decoder.decode(new Uint8Array(memory0.buffer, ptr16, len16));
          variant17= {
            tag: 'err',
            val: result16
          };
          break;
        }
        default: {
          throw new TypeError('invalid variant discriminant for expected');
        }
      }
      const retVal = variant17;
      postReturn17(ret);
      if (typeof retVal === 'object' && retVal.tag === 'err') {
        throw new ComponentError(retVal.val);
      }
      return retVal.val;
    }
    let provider010RecordHttp;
    
    function recordHttp(arg0) {
      var {status: v0_0, headers: v0_1, body: v0_2 } = arg0;
      var vec4 = v0_1;
      var len4 = vec4.length;
      var result4 = realloc0(0, 0, 4, len4 * 16);
      for (let i = 0; i < vec4.length; i++) {
        const e = vec4[i];
        const base = result4 + i * 16;var [tuple1_0, tuple1_1] = e;
        var ptr2 = utf8Encode(tuple1_0, realloc0, memory0);
        var len2 = utf8EncodedLen;
        dataView(memory0).setInt32(base + 4, len2, true);
        dataView(memory0).setInt32(base + 0, ptr2, true);
        var ptr3 = utf8Encode(tuple1_1, realloc0, memory0);
        var len3 = utf8EncodedLen;
        dataView(memory0).setInt32(base + 12, len3, true);
        dataView(memory0).setInt32(base + 8, ptr3, true);
      }
      var val5 = v0_2;
      var len5 = val5.byteLength;
      var ptr5 = realloc0(0, 0, 1, len5 * 1);
      var src5 = new Uint8Array(val5.buffer || val5, val5.byteOffset, len5 * 1);
      (new Uint8Array(memory0.buffer, ptr5, len5 * 1)).set(src5);
      const ret = provider010RecordHttp(toUint16(v0_0), result4, len4, ptr5, len5);
      let variant10;
      switch (dataView(memory0).getUint8(ret + 0, true)) {
        case 0: {
          var ptr6 = dataView(memory0).getInt32(ret + 4, true);
          var len6 = dataView(memory0).getInt32(ret + 8, true);
          var result6 = utf8Decoder.decode(new Uint8Array(memory0.buffer, ptr6, len6));
          variant10= {
            tag: 'returned',
            val: result6
          };
          break;
        }
        case 1: {
          var bool7 = dataView(memory0).getUint8(ret + 4, true);
          var ptr8 = dataView(memory0).getInt32(ret + 8, true);
          var len8 = dataView(memory0).getInt32(ret + 12, true);
          var result8 = utf8Decoder.decode(new Uint8Array(memory0.buffer, ptr8, len8));
          variant10= {
            tag: 'failed',
            val: {
              definite: bool7 == 0 ? false : (bool7 == 1 ? true : throwInvalidBool()),
              reason: result8,
            }
          };
          break;
        }
        case 2: {
          var ptr9 = dataView(memory0).getInt32(ret + 4, true);
          var len9 = dataView(memory0).getInt32(ret + 8, true);
          var result9 = utf8Decoder.decode(new Uint8Array(memory0.buffer, ptr9, len9));
          variant10= {
            tag: 'unrecordable',
            val: result9
          };
          break;
        }
        default: {
          throw new TypeError('invalid variant discriminant for Recording');
        }
      }
      const retVal = variant10;
      postReturn18(ret);
      return retVal;
    }
    let provider010RecordMcp;
    
    function recordMcp(arg0) {
      var ptr0 = utf8Encode(arg0, realloc0, memory0);
      var len0 = utf8EncodedLen;
      const ret = provider010RecordMcp(ptr0, len0);
      let variant5;
      switch (dataView(memory0).getUint8(ret + 0, true)) {
        case 0: {
          var ptr1 = dataView(memory0).getInt32(ret + 4, true);
          var len1 = dataView(memory0).getInt32(ret + 8, true);
          var result1 = utf8Decoder.decode(new Uint8Array(memory0.buffer, ptr1, len1));
          variant5= {
            tag: 'returned',
            val: result1
          };
          break;
        }
        case 1: {
          var bool2 = dataView(memory0).getUint8(ret + 4, true);
          var ptr3 = dataView(memory0).getInt32(ret + 8, true);
          var len3 = dataView(memory0).getInt32(ret + 12, true);
          var result3 = utf8Decoder.decode(new Uint8Array(memory0.buffer, ptr3, len3));
          variant5= {
            tag: 'failed',
            val: {
              definite: bool2 == 0 ? false : (bool2 == 1 ? true : throwInvalidBool()),
              reason: result3,
            }
          };
          break;
        }
        case 2: {
          var ptr4 = dataView(memory0).getInt32(ret + 4, true);
          var len4 = dataView(memory0).getInt32(ret + 8, true);
          var result4 = utf8Decoder.decode(new Uint8Array(memory0.buffer, ptr4, len4));
          variant5= {
            tag: 'unrecordable',
            val: result4
          };
          break;
        }
        default: {
          throw new TypeError('invalid variant discriminant for Recording');
        }
      }
      const retVal = variant5;
      postReturn18(ret);
      return retVal;
    }
    let provider010ReplayHttp;
    
    function replayHttp(arg0) {
      var ptr0 = utf8Encode(arg0, realloc0, memory0);
      var len0 = utf8EncodedLen;
      const ret = provider010ReplayHttp(ptr0, len0);
      var len3 = dataView(memory0).getInt32(ret + 8, true);
      var base3 = dataView(memory0).getInt32(ret + 4, true);
      var result3 = [];
      for (let i = 0; i < len3; i++) {
        const base = base3 + i * 16;
        var ptr1 = dataView(memory0).getInt32(base + 0, true);
        var len1 = dataView(memory0).getInt32(base + 4, true);
        var result1 = utf8Decoder.decode(new Uint8Array(memory0.buffer, ptr1, len1));
        var ptr2 = dataView(memory0).getInt32(base + 8, true);
        var len2 = dataView(memory0).getInt32(base + 12, true);
        var result2 = utf8Decoder.decode(new Uint8Array(memory0.buffer, ptr2, len2));
        result3.push([result1, result2]);
      }
      var ptr4 = dataView(memory0).getInt32(ret + 12, true);
      var len4 = dataView(memory0).getInt32(ret + 16, true);
      var result4 = new Uint8Array(memory0.buffer.slice(ptr4, ptr4 + len4 * 1));
      const retVal = {
        status: clampGuest(dataView(memory0).getUint16(ret + 0, true), 0, 65535),
        headers: result3,
        body: result4,
      };
      postReturn19(ret);
      return retVal;
    }
    let provider010Refuse;
    
    function refuse(arg0, arg1) {
      var variant35 = arg0;
      let variant35_0;
      let variant35_1;
      let variant35_2;
      let variant35_3;
      let variant35_4;
      let variant35_5;
      let variant35_6;
      let variant35_7;
      let variant35_8;
      let variant35_9;
      let variant35_10;
      switch (variant35.tag) {
        case 'conflict': {
          const e = variant35.val;
          var {key: v0_0, pointer: v0_1, storedFingerprint: v0_2, givenFingerprint: v0_3 } = e;
          var ptr1 = utf8Encode(v0_0, realloc0, memory0);
          var len1 = utf8EncodedLen;
          var ptr2 = utf8Encode(v0_1, realloc0, memory0);
          var len2 = utf8EncodedLen;
          var ptr3 = utf8Encode(v0_2, realloc0, memory0);
          var len3 = utf8EncodedLen;
          var ptr4 = utf8Encode(v0_3, realloc0, memory0);
          var len4 = utf8EncodedLen;
          variant35_0 = 0;
          variant35_1 = ptr1;
          variant35_2 = len1;
          variant35_3 = ptr2;
          variant35_4 = len2;
          variant35_5 = BigInt(ptr3);
          variant35_6 = BigInt(len3);
          variant35_7 = ptr4;
          variant35_8 = len4;
          variant35_9 = 0n;
          variant35_10 = 0n;
          break;
        }
        case 'in-progress': {
          const e = variant35.val;
          var {key: v5_0, owner: v5_1, retryAfterMs: v5_2 } = e;
          var ptr6 = utf8Encode(v5_0, realloc0, memory0);
          var len6 = utf8EncodedLen;
          var ptr7 = utf8Encode(v5_1, realloc0, memory0);
          var len7 = utf8EncodedLen;
          variant35_0 = 1;
          variant35_1 = ptr6;
          variant35_2 = len6;
          variant35_3 = ptr7;
          variant35_4 = len7;
          variant35_5 = BigInt(toUint64(v5_2));
          variant35_6 = 0n;
          variant35_7 = 0;
          variant35_8 = 0;
          variant35_9 = 0n;
          variant35_10 = 0n;
          break;
        }
        case 'in-doubt': {
          const e = variant35.val;
          var {key: v8_0, reason: v8_1, retryAfterMs: v8_2 } = e;
          var ptr9 = utf8Encode(v8_0, realloc0, memory0);
          var len9 = utf8EncodedLen;
          var ptr10 = utf8Encode(v8_1, realloc0, memory0);
          var len10 = utf8EncodedLen;
          var variant11 = v8_2;
          let variant11_0;
          let variant11_1;
          if (variant11 === null || variant11=== undefined) {
            variant11_0 = 0;
            variant11_1 = 0n;
          } else {
            const e = variant11;
            variant11_0 = 1;
            variant11_1 = toUint64(e);
          }
          variant35_0 = 2;
          variant35_1 = ptr9;
          variant35_2 = len9;
          variant35_3 = ptr10;
          variant35_4 = len10;
          variant35_5 = BigInt(BigInt(variant11_0));
          variant35_6 = variant11_1;
          variant35_7 = 0;
          variant35_8 = 0;
          variant35_9 = 0n;
          variant35_10 = 0n;
          break;
        }
        case 'escalated': {
          const e = variant35.val;
          var {key: v12_0, reason: v12_1 } = e;
          var ptr13 = utf8Encode(v12_0, realloc0, memory0);
          var len13 = utf8EncodedLen;
          var ptr14 = utf8Encode(v12_1, realloc0, memory0);
          var len14 = utf8EncodedLen;
          variant35_0 = 3;
          variant35_1 = ptr13;
          variant35_2 = len13;
          variant35_3 = ptr14;
          variant35_4 = len14;
          variant35_5 = 0n;
          variant35_6 = 0n;
          variant35_7 = 0;
          variant35_8 = 0;
          variant35_9 = 0n;
          variant35_10 = 0n;
          break;
        }
        case 'tool-failed': {
          const e = variant35.val;
          var ptr15 = utf8Encode(e, realloc0, memory0);
          var len15 = utf8EncodedLen;
          variant35_0 = 4;
          variant35_1 = ptr15;
          variant35_2 = len15;
          variant35_3 = 0;
          variant35_4 = 0;
          variant35_5 = 0n;
          variant35_6 = 0n;
          variant35_7 = 0;
          variant35_8 = 0;
          variant35_9 = 0n;
          variant35_10 = 0n;
          break;
        }
        case 'result-not-recorded': {
          const e = variant35.val;
          var {key: v16_0, reason: v16_1 } = e;
          var ptr17 = utf8Encode(v16_0, realloc0, memory0);
          var len17 = utf8EncodedLen;
          var ptr18 = utf8Encode(v16_1, realloc0, memory0);
          var len18 = utf8EncodedLen;
          variant35_0 = 5;
          variant35_1 = ptr17;
          variant35_2 = len17;
          variant35_3 = ptr18;
          variant35_4 = len18;
          variant35_5 = 0n;
          variant35_6 = 0n;
          variant35_7 = 0;
          variant35_8 = 0;
          variant35_9 = 0n;
          variant35_10 = 0n;
          break;
        }
        case 'storage': {
          const e = variant35.val;
          var ptr19 = utf8Encode(e, realloc0, memory0);
          var len19 = utf8EncodedLen;
          variant35_0 = 6;
          variant35_1 = ptr19;
          variant35_2 = len19;
          variant35_3 = 0;
          variant35_4 = 0;
          variant35_5 = 0n;
          variant35_6 = 0n;
          variant35_7 = 0;
          variant35_8 = 0;
          variant35_9 = 0n;
          variant35_10 = 0n;
          break;
        }
        case 'ledger': {
          const e = variant35.val;
          var {kind: v20_0, state: v20_1, message: v20_2 } = e;
          var val21 = v20_0;
          let enum21;
          switch (val21) {
            case 'not-found': {
              enum21 = 0;
              break;
            }
            case 'stale-token': {
              enum21 = 1;
              break;
            }
            case 'invalid-state': {
              enum21 = 2;
              break;
            }
            case 'already-settled': {
              enum21 = 3;
              break;
            }
            case 'retention-not-reached': {
              enum21 = 4;
              break;
            }
            case 'invalid-request': {
              enum21 = 5;
              break;
            }
            case 'changed': {
              enum21 = 6;
              break;
            }
            default: {
              if ((v20_0) instanceof Error) {
                console.error(v20_0);
              }
              
              throw new TypeError(`"${val21}" is not one of the cases of ledger-error-kind`);
            }
          }
          var variant23 = v20_1;
          let variant23_0;
          let variant23_1;
          if (variant23 === null || variant23=== undefined) {
            variant23_0 = 0;
            variant23_1 = 0;
          } else {
            const e = variant23;
            var val22 = e;
            let enum22;
            switch (val22) {
              case 'pending': {
                enum22 = 0;
                break;
              }
              case 'done': {
                enum22 = 1;
                break;
              }
              case 'failed': {
                enum22 = 2;
                break;
              }
              case 'in-doubt': {
                enum22 = 3;
                break;
              }
              case 'escalated': {
                enum22 = 4;
                break;
              }
              case 'awaiting-approval': {
                enum22 = 5;
                break;
              }
              case 'approved': {
                enum22 = 6;
                break;
              }
              case 'denied': {
                enum22 = 7;
                break;
              }
              default: {
                if ((e) instanceof Error) {
                  console.error(e);
                }
                
                throw new TypeError(`"${val22}" is not one of the cases of entry-state`);
              }
            }
            variant23_0 = 1;
            variant23_1 = enum22;
          }
          var ptr24 = utf8Encode(v20_2, realloc0, memory0);
          var len24 = utf8EncodedLen;
          variant35_0 = 7;
          variant35_1 = enum21;
          variant35_2 = variant23_0;
          variant35_3 = variant23_1;
          variant35_4 = ptr24;
          variant35_5 = BigInt(BigInt(len24));
          variant35_6 = 0n;
          variant35_7 = 0;
          variant35_8 = 0;
          variant35_9 = 0n;
          variant35_10 = 0n;
          break;
        }
        case 'contention': {
          const e = variant35.val;
          variant35_0 = 8;
          variant35_1 = toUint32(e);
          variant35_2 = 0;
          variant35_3 = 0;
          variant35_4 = 0;
          variant35_5 = 0n;
          variant35_6 = 0n;
          variant35_7 = 0;
          variant35_8 = 0;
          variant35_9 = 0n;
          variant35_10 = 0n;
          break;
        }
        case 'awaiting-approval': {
          const e = variant35.val;
          var {scope: v25_0, key: v25_1, tool: v25_2, argsCanonical: v25_3, version: v25_4, since: v25_5 } = e;
          var ptr26 = utf8Encode(v25_0, realloc0, memory0);
          var len26 = utf8EncodedLen;
          var ptr27 = utf8Encode(v25_1, realloc0, memory0);
          var len27 = utf8EncodedLen;
          var ptr28 = utf8Encode(v25_2, realloc0, memory0);
          var len28 = utf8EncodedLen;
          var ptr29 = utf8Encode(v25_3, realloc0, memory0);
          var len29 = utf8EncodedLen;
          variant35_0 = 9;
          variant35_1 = ptr26;
          variant35_2 = len26;
          variant35_3 = ptr27;
          variant35_4 = len27;
          variant35_5 = BigInt(ptr28);
          variant35_6 = BigInt(len28);
          variant35_7 = ptr29;
          variant35_8 = len29;
          variant35_9 = toUint64(v25_4);
          variant35_10 = toUint64(v25_5);
          break;
        }
        case 'denied': {
          const e = variant35.val;
          var {key: v30_0, by: v30_1, reason: v30_2, settlement: v30_3 } = e;
          var ptr31 = utf8Encode(v30_0, realloc0, memory0);
          var len31 = utf8EncodedLen;
          var ptr32 = utf8Encode(v30_1, realloc0, memory0);
          var len32 = utf8EncodedLen;
          var ptr33 = utf8Encode(v30_2, realloc0, memory0);
          var len33 = utf8EncodedLen;
          var ptr34 = utf8Encode(v30_3, realloc0, memory0);
          var len34 = utf8EncodedLen;
          variant35_0 = 10;
          variant35_1 = ptr31;
          variant35_2 = len31;
          variant35_3 = ptr32;
          variant35_4 = len32;
          variant35_5 = BigInt(ptr33);
          variant35_6 = BigInt(len33);
          variant35_7 = ptr34;
          variant35_8 = len34;
          variant35_9 = 0n;
          variant35_10 = 0n;
          break;
        }
        default: {
          throw new TypeError(`invalid variant tag value \`${JSON.stringify(variant35.tag)}\` (received \`${variant35}\`) specified for \`EffectError\``);
        }
      }
      const ret = provider010Refuse(variant35_0, variant35_1, variant35_2, variant35_3, variant35_4, variant35_5, variant35_6, variant35_7, variant35_8, variant35_9, variant35_10, arg1 ? 1 : 0);
      let variant45;
      switch (dataView(memory0).getUint8(ret + 0, true)) {
        case 0: {
          variant45= {
            tag: 'handler',
          };
          break;
        }
        case 1: {
          var ptr36 = dataView(memory0).getInt32(ret + 12, true);
          var len36 = dataView(memory0).getInt32(ret + 16, true);
          var result36 = utf8Decoder.decode(new Uint8Array(memory0.buffer, ptr36, len36));
          var ptr37 = dataView(memory0).getInt32(ret + 20, true);
          var len37 = dataView(memory0).getInt32(ret + 24, true);
          var result37 = utf8Decoder.decode(new Uint8Array(memory0.buffer, ptr37, len37));
          var ptr38 = dataView(memory0).getInt32(ret + 28, true);
          var len38 = dataView(memory0).getInt32(ret + 32, true);
          var result38 = utf8Decoder.decode(new Uint8Array(memory0.buffer, ptr38, len38));
          let variant40;
          switch (dataView(memory0).getUint8(ret + 36, true)) {
            case 0: {
              variant40 = undefined;
              break;
            }
            case 1: {
              var ptr39 = dataView(memory0).getInt32(ret + 40, true);
              var len39 = dataView(memory0).getInt32(ret + 44, true);
              var result39 = utf8Decoder.decode(new Uint8Array(memory0.buffer, ptr39, len39));
              variant40 = result39;
              break;
            }
            default: {
              throw new TypeError('invalid variant discriminant for option');
            }
          }
          let variant42;
          switch (dataView(memory0).getUint8(ret + 48, true)) {
            case 0: {
              variant42 = undefined;
              break;
            }
            case 1: {
              var ptr41 = dataView(memory0).getInt32(ret + 52, true);
              var len41 = dataView(memory0).getInt32(ret + 56, true);
              var result41 = utf8Decoder.decode(new Uint8Array(memory0.buffer, ptr41, len41));
              variant42 = result41;
              break;
            }
            default: {
              throw new TypeError('invalid variant discriminant for option');
            }
          }
          let variant43;
          switch (dataView(memory0).getUint8(ret + 64, true)) {
            case 0: {
              variant43 = undefined;
              break;
            }
            case 1: {
              variant43 = BigInt.asUintN(64, dataView(memory0).getBigInt64(ret + 72, true));
              break;
            }
            default: {
              throw new TypeError('invalid variant discriminant for option');
            }
          }
          var ptr44 = dataView(memory0).getInt32(ret + 80, true);
          var len44 = dataView(memory0).getInt32(ret + 84, true);
          var result44 = utf8Decoder.decode(new Uint8Array(memory0.buffer, ptr44, len44));
          variant45= {
            tag: 'refuse',
            val: {
              status: clampGuest(dataView(memory0).getUint16(ret + 8, true), 0, 65535),
              kind: result36,
              title: result37,
              detail: result38,
              pointer: variant40,
              part: variant42,
              retryAfterS: variant43,
              problemJson: result44,
            }
          };
          break;
        }
        default: {
          throw new TypeError('invalid variant discriminant for Answer');
        }
      }
      const retVal = variant45;
      postReturn20(ret);
      return retVal;
    }
    let agent010Identify;
    
    function identify(arg0) {
      var ptr0 = realloc0(0, 0, 4, 116);
      var {tool: v1_0, keyIdentity: v1_1, effectClass: v1_2, scope: v1_3, run: v1_4, step: v1_5, conversation: v1_6, metaJson: v1_7, paramsKey: v1_8, session: v1_9, defaultScope: v1_10, defaultRun: v1_11 } = arg0;
      var ptr2 = utf8Encode(v1_0, realloc0, memory0);
      var len2 = utf8EncodedLen;
      dataView(memory0).setInt32(ptr0 + 4, len2, true);
      dataView(memory0).setInt32(ptr0 + 0, ptr2, true);
      var val3 = v1_1;
      let enum3;
      switch (val3) {
        case 'step': {
          enum3 = 0;
          break;
        }
        case 'run': {
          enum3 = 1;
          break;
        }
        case 'scope': {
          enum3 = 2;
          break;
        }
        default: {
          if ((v1_1) instanceof Error) {
            console.error(v1_1);
          }
          
          throw new TypeError(`"${val3}" is not one of the cases of key-identity`);
        }
      }
      dataView(memory0).setInt8(ptr0 + 8, enum3, true);
      var variant5 = v1_2;
      if (variant5 === null || variant5=== undefined) {
        dataView(memory0).setInt8(ptr0 + 9, 0, true);
      } else {
        const e = variant5;
        dataView(memory0).setInt8(ptr0 + 9, 1, true);
        var val4 = e;
        let enum4;
        switch (val4) {
          case 'read-only': {
            enum4 = 0;
            break;
          }
          case 'overwriting-write': {
            enum4 = 1;
            break;
          }
          case 'accumulating-write': {
            enum4 = 2;
            break;
          }
          case 'irreversible-external': {
            enum4 = 3;
            break;
          }
          default: {
            if ((e) instanceof Error) {
              console.error(e);
            }
            
            throw new TypeError(`"${val4}" is not one of the cases of effect-class`);
          }
        }
        dataView(memory0).setInt8(ptr0 + 10, enum4, true);
      }
      var variant7 = v1_3;
      if (variant7 === null || variant7=== undefined) {
        dataView(memory0).setInt8(ptr0 + 12, 0, true);
      } else {
        const e = variant7;
        dataView(memory0).setInt8(ptr0 + 12, 1, true);
        var ptr6 = utf8Encode(e, realloc0, memory0);
        var len6 = utf8EncodedLen;
        dataView(memory0).setInt32(ptr0 + 20, len6, true);
        dataView(memory0).setInt32(ptr0 + 16, ptr6, true);
      }
      var variant9 = v1_4;
      if (variant9 === null || variant9=== undefined) {
        dataView(memory0).setInt8(ptr0 + 24, 0, true);
      } else {
        const e = variant9;
        dataView(memory0).setInt8(ptr0 + 24, 1, true);
        var ptr8 = utf8Encode(e, realloc0, memory0);
        var len8 = utf8EncodedLen;
        dataView(memory0).setInt32(ptr0 + 32, len8, true);
        dataView(memory0).setInt32(ptr0 + 28, ptr8, true);
      }
      var variant11 = v1_5;
      if (variant11 === null || variant11=== undefined) {
        dataView(memory0).setInt8(ptr0 + 36, 0, true);
      } else {
        const e = variant11;
        dataView(memory0).setInt8(ptr0 + 36, 1, true);
        var ptr10 = utf8Encode(e, realloc0, memory0);
        var len10 = utf8EncodedLen;
        dataView(memory0).setInt32(ptr0 + 44, len10, true);
        dataView(memory0).setInt32(ptr0 + 40, ptr10, true);
      }
      var variant13 = v1_6;
      if (variant13 === null || variant13=== undefined) {
        dataView(memory0).setInt8(ptr0 + 48, 0, true);
      } else {
        const e = variant13;
        dataView(memory0).setInt8(ptr0 + 48, 1, true);
        var ptr12 = utf8Encode(e, realloc0, memory0);
        var len12 = utf8EncodedLen;
        dataView(memory0).setInt32(ptr0 + 56, len12, true);
        dataView(memory0).setInt32(ptr0 + 52, ptr12, true);
      }
      var ptr14 = utf8Encode(v1_7, realloc0, memory0);
      var len14 = utf8EncodedLen;
      dataView(memory0).setInt32(ptr0 + 64, len14, true);
      dataView(memory0).setInt32(ptr0 + 60, ptr14, true);
      var variant16 = v1_8;
      if (variant16 === null || variant16=== undefined) {
        dataView(memory0).setInt8(ptr0 + 68, 0, true);
      } else {
        const e = variant16;
        dataView(memory0).setInt8(ptr0 + 68, 1, true);
        var ptr15 = utf8Encode(e, realloc0, memory0);
        var len15 = utf8EncodedLen;
        dataView(memory0).setInt32(ptr0 + 76, len15, true);
        dataView(memory0).setInt32(ptr0 + 72, ptr15, true);
      }
      var variant18 = v1_9;
      if (variant18 === null || variant18=== undefined) {
        dataView(memory0).setInt8(ptr0 + 80, 0, true);
      } else {
        const e = variant18;
        dataView(memory0).setInt8(ptr0 + 80, 1, true);
        var ptr17 = utf8Encode(e, realloc0, memory0);
        var len17 = utf8EncodedLen;
        dataView(memory0).setInt32(ptr0 + 88, len17, true);
        dataView(memory0).setInt32(ptr0 + 84, ptr17, true);
      }
      var variant20 = v1_10;
      if (variant20 === null || variant20=== undefined) {
        dataView(memory0).setInt8(ptr0 + 92, 0, true);
      } else {
        const e = variant20;
        dataView(memory0).setInt8(ptr0 + 92, 1, true);
        var ptr19 = utf8Encode(e, realloc0, memory0);
        var len19 = utf8EncodedLen;
        dataView(memory0).setInt32(ptr0 + 100, len19, true);
        dataView(memory0).setInt32(ptr0 + 96, ptr19, true);
      }
      var variant22 = v1_11;
      if (variant22 === null || variant22=== undefined) {
        dataView(memory0).setInt8(ptr0 + 104, 0, true);
      } else {
        const e = variant22;
        dataView(memory0).setInt8(ptr0 + 104, 1, true);
        var ptr21 = utf8Encode(e, realloc0, memory0);
        var len21 = utf8EncodedLen;
        dataView(memory0).setInt32(ptr0 + 112, len21, true);
        dataView(memory0).setInt32(ptr0 + 108, ptr21, true);
      }
      const ret = agent010Identify(ptr0);
      let variant38;
      switch (dataView(memory0).getUint8(ret + 0, true)) {
        case 0: {
          var ptr23 = dataView(memory0).getInt32(ret + 4, true);
          var len23 = dataView(memory0).getInt32(ret + 8, true);
          var result23 = utf8Decoder.decode(new Uint8Array(memory0.buffer, ptr23, len23));
          let variant25;
          switch (dataView(memory0).getUint8(ret + 12, true)) {
            case 0: {
              variant25 = undefined;
              break;
            }
            case 1: {
              var ptr24 = dataView(memory0).getInt32(ret + 16, true);
              var len24 = dataView(memory0).getInt32(ret + 20, true);
              var result24 = utf8Decoder.decode(new Uint8Array(memory0.buffer, ptr24, len24));
              variant25 = result24;
              break;
            }
            default: {
              throw new TypeError('invalid variant discriminant for option');
            }
          }
          let variant27;
          switch (dataView(memory0).getUint8(ret + 24, true)) {
            case 0: {
              variant27 = undefined;
              break;
            }
            case 1: {
              var ptr26 = dataView(memory0).getInt32(ret + 28, true);
              var len26 = dataView(memory0).getInt32(ret + 32, true);
              var result26 = utf8Decoder.decode(new Uint8Array(memory0.buffer, ptr26, len26));
              variant27 = result26;
              break;
            }
            default: {
              throw new TypeError('invalid variant discriminant for option');
            }
          }
          let enum28;
          switch (dataView(memory0).getUint8(ret + 36, true)) {
            case 0: {
              enum28 = 'step';
              break;
            }
            case 1: {
              enum28 = 'run';
              break;
            }
            case 2: {
              enum28 = 'scope';
              break;
            }
            default: {
              throw new TypeError('invalid discriminant specified for KeyIdentity');
            }
          }
          let enum29;
          switch (dataView(memory0).getUint8(ret + 37, true)) {
            case 0: {
              enum29 = 'given';
              break;
            }
            case 1: {
              enum29 = 'conversation';
              break;
            }
            case 2: {
              enum29 = 'meta';
              break;
            }
            case 3: {
              enum29 = 'idempotency-key';
              break;
            }
            case 4: {
              enum29 = 'host-default';
              break;
            }
            case 5: {
              enum29 = 'session';
              break;
            }
            case 6: {
              enum29 = 'fallback';
              break;
            }
            default: {
              throw new TypeError('invalid discriminant specified for Origin');
            }
          }
          let variant31;
          switch (dataView(memory0).getUint8(ret + 38, true)) {
            case 0: {
              variant31 = undefined;
              break;
            }
            case 1: {
              let enum30;
              switch (dataView(memory0).getUint8(ret + 39, true)) {
                case 0: {
                  enum30 = 'given';
                  break;
                }
                case 1: {
                  enum30 = 'conversation';
                  break;
                }
                case 2: {
                  enum30 = 'meta';
                  break;
                }
                case 3: {
                  enum30 = 'idempotency-key';
                  break;
                }
                case 4: {
                  enum30 = 'host-default';
                  break;
                }
                case 5: {
                  enum30 = 'session';
                  break;
                }
                case 6: {
                  enum30 = 'fallback';
                  break;
                }
                default: {
                  throw new TypeError('invalid discriminant specified for Origin');
                }
              }
              variant31 = enum30;
              break;
            }
            default: {
              throw new TypeError('invalid variant discriminant for option');
            }
          }
          let variant33;
          switch (dataView(memory0).getUint8(ret + 40, true)) {
            case 0: {
              variant33 = undefined;
              break;
            }
            case 1: {
              let enum32;
              switch (dataView(memory0).getUint8(ret + 41, true)) {
                case 0: {
                  enum32 = 'given';
                  break;
                }
                case 1: {
                  enum32 = 'conversation';
                  break;
                }
                case 2: {
                  enum32 = 'meta';
                  break;
                }
                case 3: {
                  enum32 = 'idempotency-key';
                  break;
                }
                case 4: {
                  enum32 = 'host-default';
                  break;
                }
                case 5: {
                  enum32 = 'session';
                  break;
                }
                case 6: {
                  enum32 = 'fallback';
                  break;
                }
                default: {
                  throw new TypeError('invalid discriminant specified for Origin');
                }
              }
              variant33 = enum32;
              break;
            }
            default: {
              throw new TypeError('invalid variant discriminant for option');
            }
          }
          variant38= {
            tag: 'ok',
            val: {
              scope: result23,
              run: variant25,
              step: variant27,
              keyIdentity: enum28,
              scopeFrom: enum29,
              runFrom: variant31,
              stepFrom: variant33,
            }
          };
          break;
        }
        case 1: {
          let enum34;
          switch (dataView(memory0).getUint8(ret + 4, true)) {
            case 0: {
              enum34 = 'no-run';
              break;
            }
            case 1: {
              enum34 = 'invalid-meta';
              break;
            }
            default: {
              throw new TypeError('invalid discriminant specified for IdentityErrorKind');
            }
          }
          let variant36;
          switch (dataView(memory0).getUint8(ret + 8, true)) {
            case 0: {
              variant36 = undefined;
              break;
            }
            case 1: {
              var ptr35 = dataView(memory0).getInt32(ret + 12, true);
              var len35 = dataView(memory0).getInt32(ret + 16, true);
              var result35 = utf8Decoder.decode(new Uint8Array(memory0.buffer, ptr35, len35));
              variant36 = result35;
              break;
            }
            default: {
              throw new TypeError('invalid variant discriminant for option');
            }
          }
          var ptr37 = dataView(memory0).getInt32(ret + 20, true);
          var len37 = dataView(memory0).getInt32(ret + 24, true);
          var result37 = utf8Decoder.decode(new Uint8Array(memory0.buffer, ptr37, len37));
          variant38= {
            tag: 'err',
            val: {
              kind: enum34,
              at: variant36,
              message: result37,
            }
          };
          break;
        }
        default: {
          throw new TypeError('invalid variant discriminant for expected');
        }
      }
      const retVal = variant38;
      postReturn21(ret);
      if (typeof retVal === 'object' && retVal.tag === 'err') {
        throw new ComponentError(retVal.val);
      }
      return retVal.val;
    }
    let agent010ApprovalPrompt;
    
    function approvalPrompt(arg0, arg1) {
      var {scope: v0_0, key: v0_1, tool: v0_2, argsCanonical: v0_3, version: v0_4, since: v0_5 } = arg0;
      var ptr1 = utf8Encode(v0_0, realloc0, memory0);
      var len1 = utf8EncodedLen;
      var ptr2 = utf8Encode(v0_1, realloc0, memory0);
      var len2 = utf8EncodedLen;
      var ptr3 = utf8Encode(v0_2, realloc0, memory0);
      var len3 = utf8EncodedLen;
      var ptr4 = utf8Encode(v0_3, realloc0, memory0);
      var len4 = utf8EncodedLen;
      var variant6 = arg1;
      let variant6_0;
      let variant6_1;
      let variant6_2;
      if (variant6 === null || variant6=== undefined) {
        variant6_0 = 0;
        variant6_1 = 0;
        variant6_2 = 0;
      } else {
        const e = variant6;
        var ptr5 = utf8Encode(e, realloc0, memory0);
        var len5 = utf8EncodedLen;
        variant6_0 = 1;
        variant6_1 = ptr5;
        variant6_2 = len5;
      }
      const ret = agent010ApprovalPrompt(ptr1, len1, ptr2, len2, ptr3, len3, ptr4, len4, toUint64(v0_4), toUint64(v0_5), variant6_0, variant6_1, variant6_2);
      var ptr7 = dataView(memory0).getInt32(ret + 0, true);
      var len7 = dataView(memory0).getInt32(ret + 4, true);
      var result7 = utf8Decoder.decode(new Uint8Array(memory0.buffer, ptr7, len7));
      var ptr8 = dataView(memory0).getInt32(ret + 8, true);
      var len8 = dataView(memory0).getInt32(ret + 12, true);
      var result8 = utf8Decoder.decode(new Uint8Array(memory0.buffer, ptr8, len8));
      var ptr9 = dataView(memory0).getInt32(ret + 16, true);
      var len9 = dataView(memory0).getInt32(ret + 20, true);
      var result9 = utf8Decoder.decode(new Uint8Array(memory0.buffer, ptr9, len9));
      var ptr10 = dataView(memory0).getInt32(ret + 24, true);
      var len10 = dataView(memory0).getInt32(ret + 28, true);
      var result10 = utf8Decoder.decode(new Uint8Array(memory0.buffer, ptr10, len10));
      const retVal = {
        message: result7,
        schemaJson: result8,
        recordedAs: result9,
        declineNote: result10,
      };
      postReturn22(ret);
      return retVal;
    }
    let agent010Answer;
    
    function answer(arg0) {
      var variant48 = arg0;
      let variant48_0;
      let variant48_1;
      let variant48_2;
      let variant48_3;
      let variant48_4;
      let variant48_5;
      let variant48_6;
      let variant48_7;
      let variant48_8;
      let variant48_9;
      let variant48_10;
      let variant48_11;
      let variant48_12;
      let variant48_13;
      switch (variant48.tag) {
        case 'effect': {
          const e = variant48.val;
          var variant35 = e;
          let variant35_0;
          let variant35_1;
          let variant35_2;
          let variant35_3;
          let variant35_4;
          let variant35_5;
          let variant35_6;
          let variant35_7;
          let variant35_8;
          let variant35_9;
          let variant35_10;
          switch (variant35.tag) {
            case 'conflict': {
              const e = variant35.val;
              var {key: v0_0, pointer: v0_1, storedFingerprint: v0_2, givenFingerprint: v0_3 } = e;
              var ptr1 = utf8Encode(v0_0, realloc0, memory0);
              var len1 = utf8EncodedLen;
              var ptr2 = utf8Encode(v0_1, realloc0, memory0);
              var len2 = utf8EncodedLen;
              var ptr3 = utf8Encode(v0_2, realloc0, memory0);
              var len3 = utf8EncodedLen;
              var ptr4 = utf8Encode(v0_3, realloc0, memory0);
              var len4 = utf8EncodedLen;
              variant35_0 = 0;
              variant35_1 = ptr1;
              variant35_2 = len1;
              variant35_3 = ptr2;
              variant35_4 = len2;
              variant35_5 = BigInt(ptr3);
              variant35_6 = BigInt(len3);
              variant35_7 = ptr4;
              variant35_8 = len4;
              variant35_9 = 0n;
              variant35_10 = 0n;
              break;
            }
            case 'in-progress': {
              const e = variant35.val;
              var {key: v5_0, owner: v5_1, retryAfterMs: v5_2 } = e;
              var ptr6 = utf8Encode(v5_0, realloc0, memory0);
              var len6 = utf8EncodedLen;
              var ptr7 = utf8Encode(v5_1, realloc0, memory0);
              var len7 = utf8EncodedLen;
              variant35_0 = 1;
              variant35_1 = ptr6;
              variant35_2 = len6;
              variant35_3 = ptr7;
              variant35_4 = len7;
              variant35_5 = BigInt(toUint64(v5_2));
              variant35_6 = 0n;
              variant35_7 = 0;
              variant35_8 = 0;
              variant35_9 = 0n;
              variant35_10 = 0n;
              break;
            }
            case 'in-doubt': {
              const e = variant35.val;
              var {key: v8_0, reason: v8_1, retryAfterMs: v8_2 } = e;
              var ptr9 = utf8Encode(v8_0, realloc0, memory0);
              var len9 = utf8EncodedLen;
              var ptr10 = utf8Encode(v8_1, realloc0, memory0);
              var len10 = utf8EncodedLen;
              var variant11 = v8_2;
              let variant11_0;
              let variant11_1;
              if (variant11 === null || variant11=== undefined) {
                variant11_0 = 0;
                variant11_1 = 0n;
              } else {
                const e = variant11;
                variant11_0 = 1;
                variant11_1 = toUint64(e);
              }
              variant35_0 = 2;
              variant35_1 = ptr9;
              variant35_2 = len9;
              variant35_3 = ptr10;
              variant35_4 = len10;
              variant35_5 = BigInt(BigInt(variant11_0));
              variant35_6 = variant11_1;
              variant35_7 = 0;
              variant35_8 = 0;
              variant35_9 = 0n;
              variant35_10 = 0n;
              break;
            }
            case 'escalated': {
              const e = variant35.val;
              var {key: v12_0, reason: v12_1 } = e;
              var ptr13 = utf8Encode(v12_0, realloc0, memory0);
              var len13 = utf8EncodedLen;
              var ptr14 = utf8Encode(v12_1, realloc0, memory0);
              var len14 = utf8EncodedLen;
              variant35_0 = 3;
              variant35_1 = ptr13;
              variant35_2 = len13;
              variant35_3 = ptr14;
              variant35_4 = len14;
              variant35_5 = 0n;
              variant35_6 = 0n;
              variant35_7 = 0;
              variant35_8 = 0;
              variant35_9 = 0n;
              variant35_10 = 0n;
              break;
            }
            case 'tool-failed': {
              const e = variant35.val;
              var ptr15 = utf8Encode(e, realloc0, memory0);
              var len15 = utf8EncodedLen;
              variant35_0 = 4;
              variant35_1 = ptr15;
              variant35_2 = len15;
              variant35_3 = 0;
              variant35_4 = 0;
              variant35_5 = 0n;
              variant35_6 = 0n;
              variant35_7 = 0;
              variant35_8 = 0;
              variant35_9 = 0n;
              variant35_10 = 0n;
              break;
            }
            case 'result-not-recorded': {
              const e = variant35.val;
              var {key: v16_0, reason: v16_1 } = e;
              var ptr17 = utf8Encode(v16_0, realloc0, memory0);
              var len17 = utf8EncodedLen;
              var ptr18 = utf8Encode(v16_1, realloc0, memory0);
              var len18 = utf8EncodedLen;
              variant35_0 = 5;
              variant35_1 = ptr17;
              variant35_2 = len17;
              variant35_3 = ptr18;
              variant35_4 = len18;
              variant35_5 = 0n;
              variant35_6 = 0n;
              variant35_7 = 0;
              variant35_8 = 0;
              variant35_9 = 0n;
              variant35_10 = 0n;
              break;
            }
            case 'storage': {
              const e = variant35.val;
              var ptr19 = utf8Encode(e, realloc0, memory0);
              var len19 = utf8EncodedLen;
              variant35_0 = 6;
              variant35_1 = ptr19;
              variant35_2 = len19;
              variant35_3 = 0;
              variant35_4 = 0;
              variant35_5 = 0n;
              variant35_6 = 0n;
              variant35_7 = 0;
              variant35_8 = 0;
              variant35_9 = 0n;
              variant35_10 = 0n;
              break;
            }
            case 'ledger': {
              const e = variant35.val;
              var {kind: v20_0, state: v20_1, message: v20_2 } = e;
              var val21 = v20_0;
              let enum21;
              switch (val21) {
                case 'not-found': {
                  enum21 = 0;
                  break;
                }
                case 'stale-token': {
                  enum21 = 1;
                  break;
                }
                case 'invalid-state': {
                  enum21 = 2;
                  break;
                }
                case 'already-settled': {
                  enum21 = 3;
                  break;
                }
                case 'retention-not-reached': {
                  enum21 = 4;
                  break;
                }
                case 'invalid-request': {
                  enum21 = 5;
                  break;
                }
                case 'changed': {
                  enum21 = 6;
                  break;
                }
                default: {
                  if ((v20_0) instanceof Error) {
                    console.error(v20_0);
                  }
                  
                  throw new TypeError(`"${val21}" is not one of the cases of ledger-error-kind`);
                }
              }
              var variant23 = v20_1;
              let variant23_0;
              let variant23_1;
              if (variant23 === null || variant23=== undefined) {
                variant23_0 = 0;
                variant23_1 = 0;
              } else {
                const e = variant23;
                var val22 = e;
                let enum22;
                switch (val22) {
                  case 'pending': {
                    enum22 = 0;
                    break;
                  }
                  case 'done': {
                    enum22 = 1;
                    break;
                  }
                  case 'failed': {
                    enum22 = 2;
                    break;
                  }
                  case 'in-doubt': {
                    enum22 = 3;
                    break;
                  }
                  case 'escalated': {
                    enum22 = 4;
                    break;
                  }
                  case 'awaiting-approval': {
                    enum22 = 5;
                    break;
                  }
                  case 'approved': {
                    enum22 = 6;
                    break;
                  }
                  case 'denied': {
                    enum22 = 7;
                    break;
                  }
                  default: {
                    if ((e) instanceof Error) {
                      console.error(e);
                    }
                    
                    throw new TypeError(`"${val22}" is not one of the cases of entry-state`);
                  }
                }
                variant23_0 = 1;
                variant23_1 = enum22;
              }
              var ptr24 = utf8Encode(v20_2, realloc0, memory0);
              var len24 = utf8EncodedLen;
              variant35_0 = 7;
              variant35_1 = enum21;
              variant35_2 = variant23_0;
              variant35_3 = variant23_1;
              variant35_4 = ptr24;
              variant35_5 = BigInt(BigInt(len24));
              variant35_6 = 0n;
              variant35_7 = 0;
              variant35_8 = 0;
              variant35_9 = 0n;
              variant35_10 = 0n;
              break;
            }
            case 'contention': {
              const e = variant35.val;
              variant35_0 = 8;
              variant35_1 = toUint32(e);
              variant35_2 = 0;
              variant35_3 = 0;
              variant35_4 = 0;
              variant35_5 = 0n;
              variant35_6 = 0n;
              variant35_7 = 0;
              variant35_8 = 0;
              variant35_9 = 0n;
              variant35_10 = 0n;
              break;
            }
            case 'awaiting-approval': {
              const e = variant35.val;
              var {scope: v25_0, key: v25_1, tool: v25_2, argsCanonical: v25_3, version: v25_4, since: v25_5 } = e;
              var ptr26 = utf8Encode(v25_0, realloc0, memory0);
              var len26 = utf8EncodedLen;
              var ptr27 = utf8Encode(v25_1, realloc0, memory0);
              var len27 = utf8EncodedLen;
              var ptr28 = utf8Encode(v25_2, realloc0, memory0);
              var len28 = utf8EncodedLen;
              var ptr29 = utf8Encode(v25_3, realloc0, memory0);
              var len29 = utf8EncodedLen;
              variant35_0 = 9;
              variant35_1 = ptr26;
              variant35_2 = len26;
              variant35_3 = ptr27;
              variant35_4 = len27;
              variant35_5 = BigInt(ptr28);
              variant35_6 = BigInt(len28);
              variant35_7 = ptr29;
              variant35_8 = len29;
              variant35_9 = toUint64(v25_4);
              variant35_10 = toUint64(v25_5);
              break;
            }
            case 'denied': {
              const e = variant35.val;
              var {key: v30_0, by: v30_1, reason: v30_2, settlement: v30_3 } = e;
              var ptr31 = utf8Encode(v30_0, realloc0, memory0);
              var len31 = utf8EncodedLen;
              var ptr32 = utf8Encode(v30_1, realloc0, memory0);
              var len32 = utf8EncodedLen;
              var ptr33 = utf8Encode(v30_2, realloc0, memory0);
              var len33 = utf8EncodedLen;
              var ptr34 = utf8Encode(v30_3, realloc0, memory0);
              var len34 = utf8EncodedLen;
              variant35_0 = 10;
              variant35_1 = ptr31;
              variant35_2 = len31;
              variant35_3 = ptr32;
              variant35_4 = len32;
              variant35_5 = BigInt(ptr33);
              variant35_6 = BigInt(len33);
              variant35_7 = ptr34;
              variant35_8 = len34;
              variant35_9 = 0n;
              variant35_10 = 0n;
              break;
            }
            default: {
              throw new TypeError(`invalid variant tag value \`${JSON.stringify(variant35.tag)}\` (received \`${variant35}\`) specified for \`EffectError\``);
            }
          }
          variant48_0 = 0;
          variant48_1 = variant35_0;
          variant48_2 = BigInt(variant35_1);
          variant48_3 = variant35_2;
          variant48_4 = variant35_3;
          variant48_5 = variant35_4;
          variant48_6 = variant35_5;
          variant48_7 = variant35_6;
          variant48_8 = variant35_7;
          variant48_9 = variant35_8;
          variant48_10 = BigInt(variant35_9);
          variant48_11 = variant35_10;
          variant48_12 = 0;
          variant48_13 = 0;
          break;
        }
        case 'key': {
          const e = variant48.val;
          var {kind: v36_0, at: v36_1, canon: v36_2, message: v36_3 } = e;
          var val37 = v36_0;
          let enum37;
          switch (val37) {
            case 'invalid-args': {
              enum37 = 0;
              break;
            }
            case 'invalid-pointer': {
              enum37 = 1;
              break;
            }
            case 'missing-member': {
              enum37 = 2;
              break;
            }
            case 'pointer-into-array': {
              enum37 = 3;
              break;
            }
            case 'empty-field': {
              enum37 = 4;
              break;
            }
            default: {
              if ((v36_0) instanceof Error) {
                console.error(v36_0);
              }
              
              throw new TypeError(`"${val37}" is not one of the cases of key-error-kind`);
            }
          }
          var variant39 = v36_1;
          let variant39_0;
          let variant39_1;
          let variant39_2;
          if (variant39 === null || variant39=== undefined) {
            variant39_0 = 0;
            variant39_1 = 0;
            variant39_2 = 0;
          } else {
            const e = variant39;
            var ptr38 = utf8Encode(e, realloc0, memory0);
            var len38 = utf8EncodedLen;
            variant39_0 = 1;
            variant39_1 = ptr38;
            variant39_2 = len38;
          }
          var variant43 = v36_2;
          let variant43_0;
          let variant43_1;
          let variant43_2;
          let variant43_3;
          let variant43_4;
          let variant43_5;
          let variant43_6;
          if (variant43 === null || variant43=== undefined) {
            variant43_0 = 0;
            variant43_1 = 0;
            variant43_2 = 0n;
            variant43_3 = 0;
            variant43_4 = 0;
            variant43_5 = 0;
            variant43_6 = 0;
          } else {
            const e = variant43;
            var {kind: v40_0, offset: v40_1, line: v40_2, column: v40_3, message: v40_4 } = e;
            var val41 = v40_0;
            let enum41;
            switch (val41) {
              case 'syntax': {
                enum41 = 0;
                break;
              }
              case 'invalid-utf8': {
                enum41 = 1;
                break;
              }
              case 'lone-surrogate': {
                enum41 = 2;
                break;
              }
              case 'duplicate-key': {
                enum41 = 3;
                break;
              }
              case 'number-overflow': {
                enum41 = 4;
                break;
              }
              case 'inexact-integer': {
                enum41 = 5;
                break;
              }
              case 'too-deep': {
                enum41 = 6;
                break;
              }
              case 'too-large': {
                enum41 = 7;
                break;
              }
              default: {
                if ((v40_0) instanceof Error) {
                  console.error(v40_0);
                }
                
                throw new TypeError(`"${val41}" is not one of the cases of canon-error-kind`);
              }
            }
            var ptr42 = utf8Encode(v40_4, realloc0, memory0);
            var len42 = utf8EncodedLen;
            variant43_0 = 1;
            variant43_1 = enum41;
            variant43_2 = toUint64(v40_1);
            variant43_3 = toUint32(v40_2);
            variant43_4 = toUint32(v40_3);
            variant43_5 = ptr42;
            variant43_6 = len42;
          }
          var ptr44 = utf8Encode(v36_3, realloc0, memory0);
          var len44 = utf8EncodedLen;
          variant48_0 = 1;
          variant48_1 = enum37;
          variant48_2 = BigInt(BigInt(variant39_0));
          variant48_3 = variant39_1;
          variant48_4 = variant39_2;
          variant48_5 = variant43_0;
          variant48_6 = BigInt(BigInt(variant43_1));
          variant48_7 = variant43_2;
          variant48_8 = variant43_3;
          variant48_9 = variant43_4;
          variant48_10 = BigInt(variant43_5);
          variant48_11 = BigInt(variant43_6);
          variant48_12 = ptr44;
          variant48_13 = len44;
          break;
        }
        case 'canon': {
          const e = variant48.val;
          var {kind: v45_0, offset: v45_1, line: v45_2, column: v45_3, message: v45_4 } = e;
          var val46 = v45_0;
          let enum46;
          switch (val46) {
            case 'syntax': {
              enum46 = 0;
              break;
            }
            case 'invalid-utf8': {
              enum46 = 1;
              break;
            }
            case 'lone-surrogate': {
              enum46 = 2;
              break;
            }
            case 'duplicate-key': {
              enum46 = 3;
              break;
            }
            case 'number-overflow': {
              enum46 = 4;
              break;
            }
            case 'inexact-integer': {
              enum46 = 5;
              break;
            }
            case 'too-deep': {
              enum46 = 6;
              break;
            }
            case 'too-large': {
              enum46 = 7;
              break;
            }
            default: {
              if ((v45_0) instanceof Error) {
                console.error(v45_0);
              }
              
              throw new TypeError(`"${val46}" is not one of the cases of canon-error-kind`);
            }
          }
          var ptr47 = utf8Encode(v45_4, realloc0, memory0);
          var len47 = utf8EncodedLen;
          variant48_0 = 2;
          variant48_1 = enum46;
          variant48_2 = BigInt(toUint64(v45_1));
          variant48_3 = toUint32(v45_2);
          variant48_4 = toUint32(v45_3);
          variant48_5 = ptr47;
          variant48_6 = BigInt(BigInt(len47));
          variant48_7 = 0n;
          variant48_8 = 0;
          variant48_9 = 0;
          variant48_10 = 0n;
          variant48_11 = 0n;
          variant48_12 = 0;
          variant48_13 = 0;
          break;
        }
        default: {
          throw new TypeError(`invalid variant tag value \`${JSON.stringify(variant48.tag)}\` (received \`${variant48}\`) specified for \`Failure\``);
        }
      }
      const ret = agent010Answer(variant48_0, variant48_1, variant48_2, variant48_3, variant48_4, variant48_5, variant48_6, variant48_7, variant48_8, variant48_9, variant48_10, variant48_11, variant48_12, variant48_13);
      let variant57;
      switch (dataView(memory0).getUint8(ret + 0, true)) {
        case 0: {
          variant57 = undefined;
          break;
        }
        case 1: {
          let enum49;
          switch (dataView(memory0).getUint8(ret + 8, true)) {
            case 0: {
              enum49 = 'conflict';
              break;
            }
            case 1: {
              enum49 = 'in-progress';
              break;
            }
            case 2: {
              enum49 = 'in-doubt';
              break;
            }
            case 3: {
              enum49 = 'escalated';
              break;
            }
            case 4: {
              enum49 = 'result-not-recorded';
              break;
            }
            case 5: {
              enum49 = 'tool-failed';
              break;
            }
            case 6: {
              enum49 = 'contention';
              break;
            }
            case 7: {
              enum49 = 'invalid-arguments';
              break;
            }
            case 8: {
              enum49 = 'awaiting-approval';
              break;
            }
            case 9: {
              enum49 = 'denied';
              break;
            }
            default: {
              throw new TypeError('invalid discriminant specified for ReplyCode');
            }
          }
          var ptr50 = dataView(memory0).getInt32(ret + 12, true);
          var len50 = dataView(memory0).getInt32(ret + 16, true);
          var result50 = utf8Decoder.decode(new Uint8Array(memory0.buffer, ptr50, len50));
          let variant52;
          switch (dataView(memory0).getUint8(ret + 20, true)) {
            case 0: {
              variant52 = undefined;
              break;
            }
            case 1: {
              var ptr51 = dataView(memory0).getInt32(ret + 24, true);
              var len51 = dataView(memory0).getInt32(ret + 28, true);
              var result51 = utf8Decoder.decode(new Uint8Array(memory0.buffer, ptr51, len51));
              variant52 = result51;
              break;
            }
            default: {
              throw new TypeError('invalid variant discriminant for option');
            }
          }
          let variant54;
          switch (dataView(memory0).getUint8(ret + 32, true)) {
            case 0: {
              variant54 = undefined;
              break;
            }
            case 1: {
              var ptr53 = dataView(memory0).getInt32(ret + 36, true);
              var len53 = dataView(memory0).getInt32(ret + 40, true);
              var result53 = utf8Decoder.decode(new Uint8Array(memory0.buffer, ptr53, len53));
              variant54 = result53;
              break;
            }
            default: {
              throw new TypeError('invalid variant discriminant for option');
            }
          }
          let variant55;
          switch (dataView(memory0).getUint8(ret + 48, true)) {
            case 0: {
              variant55 = undefined;
              break;
            }
            case 1: {
              variant55 = BigInt.asUintN(64, dataView(memory0).getBigInt64(ret + 56, true));
              break;
            }
            default: {
              throw new TypeError('invalid variant discriminant for option');
            }
          }
          var bool56 = dataView(memory0).getUint8(ret + 64, true);
          variant57 = {
            code: enum49,
            text: result50,
            key: variant52,
            pointer: variant54,
            retryAfterMs: variant55,
            repeatable: bool56 == 0 ? false : (bool56 == 1 ? true : throwInvalidBool()),
          };
          break;
        }
        default: {
          throw new TypeError('invalid variant discriminant for option');
        }
      }
      const retVal = variant57;
      postReturn23(ret);
      return retVal;
    }
    canonical010MaxInputBytes = exports0['oncely:core/canonical@0.1.0#max-input-bytes'];
    canonical010MaxDepth = exports0['oncely:core/canonical@0.1.0#max-depth'];
    canonical010Canonicalize = exports0['oncely:core/canonical@0.1.0#canonicalize'];
    canonical010CanonicalizeBytes = exports0['oncely:core/canonical@0.1.0#canonicalize-bytes'];
    keys010Derive = exports0['oncely:core/keys@0.1.0#derive'];
    keys010Key = exports0['oncely:core/keys@0.1.0#key'];
    keys010DeriveMany = exports0['oncely:core/keys@0.1.0#derive-many'];
    keys010DefaultSpec = exports0['oncely:core/keys@0.1.0#default-spec'];
    keys010ArgsRefused = exports0['oncely:core/keys@0.1.0#args-refused'];
    keys010Explain = exports0['oncely:core/keys@0.1.0#explain'];
    policy010Classify = exports0['oncely:core/policy@0.1.0#classify'];
    policy010DefaultPolicy = exports0['oncely:core/policy@0.1.0#default-policy'];
    policy010ParsePolicy = exports0['oncely:core/policy@0.1.0#parse-policy'];
    policy010ResolveTool = exports0['oncely:core/policy@0.1.0#resolve-tool'];
    policy010CheckManifest = exports0['oncely:core/policy@0.1.0#check-manifest'];
    ledger010Prepare = exports0['oncely:core/ledger@0.1.0#prepare'];
    ledger010NeedsPerson = exports0['oncely:core/ledger@0.1.0#needs-person'];
    ledger010NeedsPersonSince = exports0['oncely:core/ledger@0.1.0#needs-person-since'];
    ledger010Settleable = exports0['oncely:core/ledger@0.1.0#settleable'];
    ledger010AsksApproval = exports0['oncely:core/ledger@0.1.0#asks-approval'];
    ledger010DecisionOf = exports0['oncely:core/ledger@0.1.0#decision-of'];
    ledger010HistoryDecision = exports0['oncely:core/ledger@0.1.0#history-decision'];
    ledger010AttentionSince = exports0['oncely:core/ledger@0.1.0#attention-since'];
    effect010Defaults = exports0['oncely:core/effect@0.1.0#defaults'];
    effect010Run = exports0['oncely:core/effect@0.1.0#run'];
    provider010Admit = exports0['oncely:core/provider@0.1.0#admit'];
    provider010Oversized = exports0['oncely:core/provider@0.1.0#oversized'];
    provider010McpRefusal = exports0['oncely:core/provider@0.1.0#mcp-refusal'];
    provider010CheckOperation = exports0['oncely:core/provider@0.1.0#check-operation'];
    provider010RecordHttp = exports0['oncely:core/provider@0.1.0#record-http'];
    provider010RecordMcp = exports0['oncely:core/provider@0.1.0#record-mcp'];
    provider010ReplayHttp = exports0['oncely:core/provider@0.1.0#replay-http'];
    provider010Refuse = exports0['oncely:core/provider@0.1.0#refuse'];
    agent010Identify = exports0['oncely:core/agent@0.1.0#identify'];
    agent010ApprovalPrompt = exports0['oncely:core/agent@0.1.0#approval-prompt'];
    agent010Answer = exports0['oncely:core/agent@0.1.0#answer'];
    const agent010 = {
      answer: answer,
      approvalPrompt: approvalPrompt,
      identify: identify,
      
    };
    const canonical010 = {
      canonicalize: canonicalize,
      canonicalizeBytes: canonicalizeBytes,
      maxDepth: maxDepth,
      maxInputBytes: maxInputBytes,
      
    };
    const effect010 = {
      defaults: defaults,
      run: run,
      
    };
    const keys010 = {
      argsRefused: argsRefused,
      defaultSpec: defaultSpec,
      derive: derive,
      deriveMany: deriveMany,
      explain: explain,
      key: key,
      
    };
    const ledger010 = {
      asksApproval: asksApproval,
      attentionSince: attentionSince,
      decisionOf: decisionOf,
      historyDecision: historyDecision,
      needsPerson: needsPerson,
      needsPersonSince: needsPersonSince,
      prepare: prepare,
      settleable: settleable,
      
    };
    const policy010 = {
      checkManifest: checkManifest,
      classify: classify,
      defaultPolicy: defaultPolicy,
      parsePolicy: parsePolicy,
      resolveTool: resolveTool,
      
    };
    const provider010 = {
      admit: admit,
      checkOperation: checkOperation,
      mcpRefusal: mcpRefusal,
      oversized: oversized,
      recordHttp: recordHttp,
      recordMcp: recordMcp,
      refuse: refuse,
      replayHttp: replayHttp,
      
    };
    
    return { agent: agent010, canonical: canonical010, effect: effect010, keys: keys010, ledger: ledger010, policy: policy010, provider: provider010, 'oncely:core/agent@0.1.0': agent010, 'oncely:core/canonical@0.1.0': canonical010, 'oncely:core/effect@0.1.0': effect010, 'oncely:core/keys@0.1.0': keys010, 'oncely:core/ledger@0.1.0': ledger010, 'oncely:core/policy@0.1.0': policy010, 'oncely:core/provider@0.1.0': provider010,  };
  })();
  let promise, resolve, reject;
  function runNext (value) {
    try {
      let done;
      do {
        ({ value, done } = gen.next(value));
      } while (!(value instanceof Promise) && !done);
      if (done) {
        if (resolve) return resolve(value);
        else return value;
      }
      if (!promise) promise = new Promise((_resolve, _reject) => (resolve = _resolve, reject = _reject));
      value.then(nextVal => done ? resolve() : runNext(nextVal), reject);
    }
    catch (e) {
      if (reject) reject(e);
      else throw e;
    }
  }
  const maybeSyncReturn = runNext(null);
  return promise || maybeSyncReturn;
}
