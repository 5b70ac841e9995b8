export function instantiate(getCoreModule, imports, instantiateCore = (module, importObject) => new WebAssembly.Instance(module, importObject)) {
  
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
    ({ exports: exports0 } = instantiateCore(module0));
    memory0 = exports0.memory;
    realloc0 = exports0.cabi_realloc;
    postReturn0 = exports0['cabi_post_oncely:core/canonical@0.1.0#canonicalize'];
    postReturn1 = exports0['cabi_post_oncely:core/keys@0.1.0#derive'];
    postReturn2 = exports0['cabi_post_oncely:core/keys@0.1.0#key'];
    postReturn3 = exports0['cabi_post_oncely:core/keys@0.1.0#derive-many'];
    postReturn4 = exports0['cabi_post_oncely:core/keys@0.1.0#default-spec'];
    postReturn5 = exports0['cabi_post_oncely:core/keys@0.1.0#explain'];
    postReturn6 = exports0['cabi_post_oncely:core/policy@0.1.0#default-policy'];
    postReturn7 = exports0['cabi_post_oncely:core/policy@0.1.0#parse-policy'];
    postReturn8 = exports0['cabi_post_oncely:core/policy@0.1.0#resolve-tool'];
    postReturn9 = exports0['cabi_post_oncely:core/policy@0.1.0#check-manifest'];
    postReturn10 = exports0['cabi_post_oncely:core/ledger@0.1.0#prepare'];
    postReturn11 = exports0['cabi_post_oncely:core/ledger@0.1.0#handle'];
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
      postReturn5(ret);
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
      const retVal = {
        class: enum1,
        key: variant8,
        reconcile: variant10,
        leaseMs: BigInt.asUintN(64, dataView(memory0).getBigInt64(ret + 48, true)),
        reconcileAfterMs: BigInt.asUintN(64, dataView(memory0).getBigInt64(ret + 56, true)),
        escalateAfterMs: BigInt.asUintN(64, dataView(memory0).getBigInt64(ret + 64, true)),
        retentionMs: BigInt.asUintN(64, dataView(memory0).getBigInt64(ret + 72, true)),
      };
      postReturn6(ret);
      return retVal;
    }
    let policy010ParsePolicy;
    
    function parsePolicy(arg0) {
      var ptr0 = utf8Encode(arg0, realloc0, memory0);
      var len0 = utf8EncodedLen;
      const ret = policy010ParsePolicy(ptr0, len0);
      let variant13;
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
          variant13= {
            tag: 'ok',
            val: {
              class: enum1,
              key: variant8,
              reconcile: variant10,
              leaseMs: BigInt.asUintN(64, dataView(memory0).getBigInt64(ret + 56, true)),
              reconcileAfterMs: BigInt.asUintN(64, dataView(memory0).getBigInt64(ret + 64, true)),
              escalateAfterMs: BigInt.asUintN(64, dataView(memory0).getBigInt64(ret + 72, true)),
              retentionMs: BigInt.asUintN(64, dataView(memory0).getBigInt64(ret + 80, true)),
            }
          };
          break;
        }
        case 1: {
          var ptr11 = dataView(memory0).getInt32(ret + 8, true);
          var len11 = dataView(memory0).getInt32(ret + 12, true);
          var result11 = utf8Decoder.decode(new Uint8Array(memory0.buffer, ptr11, len11));
          var ptr12 = dataView(memory0).getInt32(ret + 16, true);
          var len12 = dataView(memory0).getInt32(ret + 20, true);
          var result12 = utf8Decoder.decode(new Uint8Array(memory0.buffer, ptr12, len12));
          variant13= {
            tag: 'err',
            val: {
              at: result11,
              message: result12,
            }
          };
          break;
        }
        default: {
          throw new TypeError('invalid variant discriminant for expected');
        }
      }
      const retVal = variant13;
      postReturn7(ret);
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
      let variant15;
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
          let enum12;
          switch (dataView(memory0).getUint8(ret + 96, true)) {
            case 0: {
              enum12 = 'policy';
              break;
            }
            case 1: {
              enum12 = 'annotations';
              break;
            }
            case 2: {
              enum12 = 'defaults';
              break;
            }
            default: {
              throw new TypeError('invalid discriminant specified for ClassSource');
            }
          }
          variant15= {
            tag: 'ok',
            val: {
              name: result1,
              policy: {
                class: enum2,
                key: variant9,
                reconcile: variant11,
                leaseMs: BigInt.asUintN(64, dataView(memory0).getBigInt64(ret + 64, true)),
                reconcileAfterMs: BigInt.asUintN(64, dataView(memory0).getBigInt64(ret + 72, true)),
                escalateAfterMs: BigInt.asUintN(64, dataView(memory0).getBigInt64(ret + 80, true)),
                retentionMs: BigInt.asUintN(64, dataView(memory0).getBigInt64(ret + 88, true)),
              },
              classSource: enum12,
            }
          };
          break;
        }
        case 1: {
          var ptr13 = dataView(memory0).getInt32(ret + 8, true);
          var len13 = dataView(memory0).getInt32(ret + 12, true);
          var result13 = utf8Decoder.decode(new Uint8Array(memory0.buffer, ptr13, len13));
          var ptr14 = dataView(memory0).getInt32(ret + 16, true);
          var len14 = dataView(memory0).getInt32(ret + 20, true);
          var result14 = utf8Decoder.decode(new Uint8Array(memory0.buffer, ptr14, len14));
          variant15= {
            tag: 'err',
            val: {
              at: result13,
              message: result14,
            }
          };
          break;
        }
        default: {
          throw new TypeError('invalid variant discriminant for expected');
        }
      }
      const retVal = variant15;
      postReturn8(ret);
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
      let variant23;
      switch (dataView(memory0).getUint8(ret + 0, true)) {
        case 0: {
          var bool1 = dataView(memory0).getUint8(ret + 4, true);
          var len14 = dataView(memory0).getInt32(ret + 12, true);
          var base14 = dataView(memory0).getInt32(ret + 8, true);
          var result14 = [];
          for (let i = 0; i < len14; i++) {
            const base = base14 + i * 96;
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
            let enum13;
            switch (dataView(memory0).getUint8(base + 88, true)) {
              case 0: {
                enum13 = 'policy';
                break;
              }
              case 1: {
                enum13 = 'annotations';
                break;
              }
              case 2: {
                enum13 = 'defaults';
                break;
              }
              default: {
                throw new TypeError('invalid discriminant specified for ClassSource');
              }
            }
            result14.push({
              name: result2,
              policy: {
                class: enum3,
                key: variant10,
                reconcile: variant12,
                leaseMs: BigInt.asUintN(64, dataView(memory0).getBigInt64(base + 56, true)),
                reconcileAfterMs: BigInt.asUintN(64, dataView(memory0).getBigInt64(base + 64, true)),
                escalateAfterMs: BigInt.asUintN(64, dataView(memory0).getBigInt64(base + 72, true)),
                retentionMs: BigInt.asUintN(64, dataView(memory0).getBigInt64(base + 80, true)),
              },
              classSource: enum13,
            });
          }
          var len20 = dataView(memory0).getInt32(ret + 20, true);
          var base20 = dataView(memory0).getInt32(ret + 16, true);
          var result20 = [];
          for (let i = 0; i < len20; i++) {
            const base = base20 + i * 32;
            let enum15;
            switch (dataView(memory0).getUint8(base + 0, true)) {
              case 0: {
                enum15 = 'error';
                break;
              }
              case 1: {
                enum15 = 'warning';
                break;
              }
              case 2: {
                enum15 = 'info';
                break;
              }
              default: {
                throw new TypeError('invalid discriminant specified for Severity');
              }
            }
            let variant17;
            switch (dataView(memory0).getUint8(base + 4, true)) {
              case 0: {
                variant17 = undefined;
                break;
              }
              case 1: {
                var ptr16 = dataView(memory0).getInt32(base + 8, true);
                var len16 = dataView(memory0).getInt32(base + 12, true);
                var result16 = utf8Decoder.decode(new Uint8Array(memory0.buffer, ptr16, len16));
                variant17 = result16;
                break;
              }
              default: {
                throw new TypeError('invalid variant discriminant for option');
              }
            }
            var ptr18 = dataView(memory0).getInt32(base + 16, true);
            var len18 = dataView(memory0).getInt32(base + 20, true);
            var result18 = utf8Decoder.decode(new Uint8Array(memory0.buffer, ptr18, len18));
            var ptr19 = dataView(memory0).getInt32(base + 24, true);
            var len19 = dataView(memory0).getInt32(base + 28, true);
            var result19 = utf8Decoder.decode(new Uint8Array(memory0.buffer, ptr19, len19));
            result20.push({
              severity: enum15,
              tool: variant17,
              code: result18,
              message: result19,
            });
          }
          variant23= {
            tag: 'ok',
            val: {
              passed: bool1 == 0 ? false : (bool1 == 1 ? true : throwInvalidBool()),
              tools: result14,
              findings: result20,
            }
          };
          break;
        }
        case 1: {
          var ptr21 = dataView(memory0).getInt32(ret + 4, true);
          var len21 = dataView(memory0).getInt32(ret + 8, true);
          var result21 = utf8Decoder.decode(new Uint8Array(memory0.buffer, ptr21, len21));
          var ptr22 = dataView(memory0).getInt32(ret + 12, true);
          var len22 = dataView(memory0).getInt32(ret + 16, true);
          var result22 = utf8Decoder.decode(new Uint8Array(memory0.buffer, ptr22, len22));
          variant23= {
            tag: 'err',
            val: {
              at: result21,
              message: result22,
            }
          };
          break;
        }
        default: {
          throw new TypeError('invalid variant discriminant for expected');
        }
      }
      const retVal = variant23;
      postReturn9(ret);
      if (typeof retVal === 'object' && retVal.tag === 'err') {
        throw new ComponentError(retVal.val);
      }
      return retVal.val;
    }
    let ledger010Prepare;
    
    function prepare(arg0, arg1, arg2) {
      var ptr0 = realloc0(0, 0, 8, 128);
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
      var {class: v7_0, key: v7_1, reconcile: v7_2, leaseMs: v7_3, reconcileAfterMs: v7_4, escalateAfterMs: v7_5, retentionMs: v7_6 } = arg1;
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
      var ptr19 = utf8Encode(arg2, realloc0, memory0);
      var len19 = utf8EncodedLen;
      dataView(memory0).setInt32(ptr0 + 124, len19, true);
      dataView(memory0).setInt32(ptr0 + 120, ptr19, true);
      const ret = ledger010Prepare(ptr0);
      let variant43;
      switch (dataView(memory0).getUint8(ret + 0, true)) {
        case 0: {
          var ptr20 = dataView(memory0).getInt32(ret + 8, true);
          var len20 = dataView(memory0).getInt32(ret + 12, true);
          var result20 = utf8Decoder.decode(new Uint8Array(memory0.buffer, ptr20, len20));
          var ptr21 = dataView(memory0).getInt32(ret + 16, true);
          var len21 = dataView(memory0).getInt32(ret + 20, true);
          var result21 = utf8Decoder.decode(new Uint8Array(memory0.buffer, ptr21, len21));
          var ptr22 = dataView(memory0).getInt32(ret + 24, true);
          var len22 = dataView(memory0).getInt32(ret + 28, true);
          var result22 = utf8Decoder.decode(new Uint8Array(memory0.buffer, ptr22, len22));
          var ptr23 = dataView(memory0).getInt32(ret + 32, true);
          var len23 = dataView(memory0).getInt32(ret + 36, true);
          var result23 = utf8Decoder.decode(new Uint8Array(memory0.buffer, ptr23, len23));
          var ptr24 = dataView(memory0).getInt32(ret + 40, true);
          var len24 = dataView(memory0).getInt32(ret + 44, true);
          var result24 = utf8Decoder.decode(new Uint8Array(memory0.buffer, ptr24, len24));
          var ptr25 = dataView(memory0).getInt32(ret + 48, true);
          var len25 = dataView(memory0).getInt32(ret + 52, true);
          var result25 = utf8Decoder.decode(new Uint8Array(memory0.buffer, ptr25, len25));
          let enum26;
          switch (dataView(memory0).getUint8(ret + 56, true)) {
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
          switch (dataView(memory0).getUint8(ret + 60, true)) {
            case 0: {
              variant33 = undefined;
              break;
            }
            case 1: {
              let variant29;
              switch (dataView(memory0).getUint8(ret + 64, true)) {
                case 0: {
                  variant29 = undefined;
                  break;
                }
                case 1: {
                  var len28 = dataView(memory0).getInt32(ret + 72, true);
                  var base28 = dataView(memory0).getInt32(ret + 68, true);
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
              var len31 = dataView(memory0).getInt32(ret + 80, true);
              var base31 = dataView(memory0).getInt32(ret + 76, true);
              var result31 = [];
              for (let i = 0; i < len31; i++) {
                const base = base31 + i * 8;
                var ptr30 = dataView(memory0).getInt32(base + 0, true);
                var len30 = dataView(memory0).getInt32(base + 4, true);
                var result30 = utf8Decoder.decode(new Uint8Array(memory0.buffer, ptr30, len30));
                result31.push(result30);
              }
              let enum32;
              switch (dataView(memory0).getUint8(ret + 84, true)) {
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
          switch (dataView(memory0).getUint8(ret + 88, true)) {
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
              var ptr34 = dataView(memory0).getInt32(ret + 92, true);
              var len34 = dataView(memory0).getInt32(ret + 96, true);
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
          variant43= {
            tag: 'ok',
            val: {
              scope: result20,
              tool: result21,
              key: result22,
              fingerprint: result23,
              argsCanonical: result24,
              owner: result25,
              policy: {
                class: enum26,
                key: variant33,
                reconcile: variant35,
                leaseMs: BigInt.asUintN(64, dataView(memory0).getBigInt64(ret + 104, true)),
                reconcileAfterMs: BigInt.asUintN(64, dataView(memory0).getBigInt64(ret + 112, true)),
                escalateAfterMs: BigInt.asUintN(64, dataView(memory0).getBigInt64(ret + 120, true)),
                retentionMs: BigInt.asUintN(64, dataView(memory0).getBigInt64(ret + 128, true)),
              },
            }
          };
          break;
        }
        case 1: {
          let enum36;
          switch (dataView(memory0).getUint8(ret + 8, true)) {
            case 0: {
              enum36 = 'invalid-args';
              break;
            }
            case 1: {
              enum36 = 'invalid-pointer';
              break;
            }
            case 2: {
              enum36 = 'missing-member';
              break;
            }
            case 3: {
              enum36 = 'pointer-into-array';
              break;
            }
            case 4: {
              enum36 = 'empty-field';
              break;
            }
            default: {
              throw new TypeError('invalid discriminant specified for KeyErrorKind');
            }
          }
          let variant38;
          switch (dataView(memory0).getUint8(ret + 12, true)) {
            case 0: {
              variant38 = undefined;
              break;
            }
            case 1: {
              var ptr37 = dataView(memory0).getInt32(ret + 16, true);
              var len37 = dataView(memory0).getInt32(ret + 20, true);
              var result37 = utf8Decoder.decode(new Uint8Array(memory0.buffer, ptr37, len37));
              variant38 = result37;
              break;
            }
            default: {
              throw new TypeError('invalid variant discriminant for option');
            }
          }
          let variant41;
          switch (dataView(memory0).getUint8(ret + 24, true)) {
            case 0: {
              variant41 = undefined;
              break;
            }
            case 1: {
              let enum39;
              switch (dataView(memory0).getUint8(ret + 32, true)) {
                case 0: {
                  enum39 = 'syntax';
                  break;
                }
                case 1: {
                  enum39 = 'invalid-utf8';
                  break;
                }
                case 2: {
                  enum39 = 'lone-surrogate';
                  break;
                }
                case 3: {
                  enum39 = 'duplicate-key';
                  break;
                }
                case 4: {
                  enum39 = 'number-overflow';
                  break;
                }
                case 5: {
                  enum39 = 'inexact-integer';
                  break;
                }
                case 6: {
                  enum39 = 'too-deep';
                  break;
                }
                case 7: {
                  enum39 = 'too-large';
                  break;
                }
                default: {
                  throw new TypeError('invalid discriminant specified for CanonErrorKind');
                }
              }
              var ptr40 = dataView(memory0).getInt32(ret + 56, true);
              var len40 = dataView(memory0).getInt32(ret + 60, true);
              var result40 = utf8Decoder.decode(new Uint8Array(memory0.buffer, ptr40, len40));
              variant41 = {
                kind: enum39,
                offset: BigInt.asUintN(64, dataView(memory0).getBigInt64(ret + 40, true)),
                line: dataView(memory0).getInt32(ret + 48, true) >>> 0,
                column: dataView(memory0).getInt32(ret + 52, true) >>> 0,
                message: result40,
              };
              break;
            }
            default: {
              throw new TypeError('invalid variant discriminant for option');
            }
          }
          var ptr42 = dataView(memory0).getInt32(ret + 64, true);
          var len42 = dataView(memory0).getInt32(ret + 68, true);
          var result42 = utf8Decoder.decode(new Uint8Array(memory0.buffer, ptr42, len42));
          variant43= {
            tag: 'err',
            val: {
              kind: enum36,
              at: variant38,
              canon: variant41,
              message: result42,
            }
          };
          break;
        }
        default: {
          throw new TypeError('invalid variant discriminant for expected');
        }
      }
      const retVal = variant43;
      postReturn10(ret);
      if (typeof retVal === 'object' && retVal.tag === 'err') {
        throw new ComponentError(retVal.val);
      }
      return retVal.val;
    }
    let ledger010Handle;
    
    function handle(arg0, arg1, arg2) {
      var ptr0 = realloc0(0, 0, 8, 368);
      var variant19 = arg0;
      if (variant19 === null || variant19=== undefined) {
        dataView(memory0).setInt8(ptr0 + 0, 0, true);
      } else {
        const e = variant19;
        dataView(memory0).setInt8(ptr0 + 0, 1, true);
        var {scope: v1_0, key: v1_1, tool: v1_2, fingerprint: v1_3, argsCanonical: v1_4, state: v1_5, version: v1_6, attempt: v1_7, owner: v1_8, createdAt: v1_9, updatedAt: v1_10, leaseUntil: v1_11, inDoubtSince: v1_12, nextReconcileAt: v1_13, reconcileAttempts: v1_14, resultJson: v1_15, reason: v1_16, resolvedBy: v1_17, reconcile: v1_18, leaseMs: v1_19, reconcileAfterMs: v1_20, escalateAfterMs: v1_21, retentionMs: v1_22 } = e;
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
        var val7 = v1_5;
        let enum7;
        switch (val7) {
          case 'pending': {
            enum7 = 0;
            break;
          }
          case 'done': {
            enum7 = 1;
            break;
          }
          case 'failed': {
            enum7 = 2;
            break;
          }
          case 'in-doubt': {
            enum7 = 3;
            break;
          }
          case 'escalated': {
            enum7 = 4;
            break;
          }
          default: {
            if ((v1_5) instanceof Error) {
              console.error(v1_5);
            }
            
            throw new TypeError(`"${val7}" is not one of the cases of entry-state`);
          }
        }
        dataView(memory0).setInt8(ptr0 + 48, enum7, true);
        dataView(memory0).setBigInt64(ptr0 + 56, toUint64(v1_6), true);
        dataView(memory0).setInt32(ptr0 + 64, toUint32(v1_7), true);
        var ptr8 = utf8Encode(v1_8, realloc0, memory0);
        var len8 = utf8EncodedLen;
        dataView(memory0).setInt32(ptr0 + 72, len8, true);
        dataView(memory0).setInt32(ptr0 + 68, ptr8, true);
        dataView(memory0).setBigInt64(ptr0 + 80, toUint64(v1_9), true);
        dataView(memory0).setBigInt64(ptr0 + 88, toUint64(v1_10), true);
        dataView(memory0).setBigInt64(ptr0 + 96, toUint64(v1_11), true);
        var variant9 = v1_12;
        if (variant9 === null || variant9=== undefined) {
          dataView(memory0).setInt8(ptr0 + 104, 0, true);
        } else {
          const e = variant9;
          dataView(memory0).setInt8(ptr0 + 104, 1, true);
          dataView(memory0).setBigInt64(ptr0 + 112, toUint64(e), true);
        }
        var variant10 = v1_13;
        if (variant10 === null || variant10=== undefined) {
          dataView(memory0).setInt8(ptr0 + 120, 0, true);
        } else {
          const e = variant10;
          dataView(memory0).setInt8(ptr0 + 120, 1, true);
          dataView(memory0).setBigInt64(ptr0 + 128, toUint64(e), true);
        }
        dataView(memory0).setInt32(ptr0 + 136, toUint32(v1_14), true);
        var variant12 = v1_15;
        if (variant12 === null || variant12=== undefined) {
          dataView(memory0).setInt8(ptr0 + 140, 0, true);
        } else {
          const e = variant12;
          dataView(memory0).setInt8(ptr0 + 140, 1, true);
          var ptr11 = utf8Encode(e, realloc0, memory0);
          var len11 = utf8EncodedLen;
          dataView(memory0).setInt32(ptr0 + 148, len11, true);
          dataView(memory0).setInt32(ptr0 + 144, ptr11, true);
        }
        var variant14 = v1_16;
        if (variant14 === null || variant14=== undefined) {
          dataView(memory0).setInt8(ptr0 + 152, 0, true);
        } else {
          const e = variant14;
          dataView(memory0).setInt8(ptr0 + 152, 1, true);
          var ptr13 = utf8Encode(e, realloc0, memory0);
          var len13 = utf8EncodedLen;
          dataView(memory0).setInt32(ptr0 + 160, len13, true);
          dataView(memory0).setInt32(ptr0 + 156, ptr13, true);
        }
        var variant16 = v1_17;
        if (variant16 === null || variant16=== undefined) {
          dataView(memory0).setInt8(ptr0 + 164, 0, true);
        } else {
          const e = variant16;
          dataView(memory0).setInt8(ptr0 + 164, 1, true);
          var ptr15 = utf8Encode(e, realloc0, memory0);
          var len15 = utf8EncodedLen;
          dataView(memory0).setInt32(ptr0 + 172, len15, true);
          dataView(memory0).setInt32(ptr0 + 168, ptr15, true);
        }
        var variant18 = v1_18;
        switch (variant18.tag) {
          case 'none': {
            dataView(memory0).setInt8(ptr0 + 176, 0, true);
            break;
          }
          case 'provider-idempotent': {
            dataView(memory0).setInt8(ptr0 + 176, 1, true);
            break;
          }
          case 'lookup': {
            const e = variant18.val;
            dataView(memory0).setInt8(ptr0 + 176, 2, true);
            var ptr17 = utf8Encode(e, realloc0, memory0);
            var len17 = utf8EncodedLen;
            dataView(memory0).setInt32(ptr0 + 184, len17, true);
            dataView(memory0).setInt32(ptr0 + 180, ptr17, true);
            break;
          }
          case 'manual': {
            dataView(memory0).setInt8(ptr0 + 176, 3, true);
            break;
          }
          default: {
            throw new TypeError(`invalid variant tag value \`${JSON.stringify(variant18.tag)}\` (received \`${variant18}\`) specified for \`ReconcilePath\``);
          }
        }
        dataView(memory0).setBigInt64(ptr0 + 192, toUint64(v1_19), true);
        dataView(memory0).setBigInt64(ptr0 + 200, toUint64(v1_20), true);
        dataView(memory0).setBigInt64(ptr0 + 208, toUint64(v1_21), true);
        dataView(memory0).setBigInt64(ptr0 + 216, toUint64(v1_22), true);
      }
      var variant62 = arg1;
      switch (variant62.tag) {
        case 'begin': {
          const e = variant62.val;
          dataView(memory0).setInt8(ptr0 + 224, 0, true);
          var {scope: v20_0, tool: v20_1, key: v20_2, fingerprint: v20_3, argsCanonical: v20_4, owner: v20_5, policy: v20_6 } = e;
          var ptr21 = utf8Encode(v20_0, realloc0, memory0);
          var len21 = utf8EncodedLen;
          dataView(memory0).setInt32(ptr0 + 236, len21, true);
          dataView(memory0).setInt32(ptr0 + 232, ptr21, true);
          var ptr22 = utf8Encode(v20_1, realloc0, memory0);
          var len22 = utf8EncodedLen;
          dataView(memory0).setInt32(ptr0 + 244, len22, true);
          dataView(memory0).setInt32(ptr0 + 240, ptr22, true);
          var ptr23 = utf8Encode(v20_2, realloc0, memory0);
          var len23 = utf8EncodedLen;
          dataView(memory0).setInt32(ptr0 + 252, len23, true);
          dataView(memory0).setInt32(ptr0 + 248, ptr23, true);
          var ptr24 = utf8Encode(v20_3, realloc0, memory0);
          var len24 = utf8EncodedLen;
          dataView(memory0).setInt32(ptr0 + 260, len24, true);
          dataView(memory0).setInt32(ptr0 + 256, ptr24, true);
          var ptr25 = utf8Encode(v20_4, realloc0, memory0);
          var len25 = utf8EncodedLen;
          dataView(memory0).setInt32(ptr0 + 268, len25, true);
          dataView(memory0).setInt32(ptr0 + 264, ptr25, true);
          var ptr26 = utf8Encode(v20_5, realloc0, memory0);
          var len26 = utf8EncodedLen;
          dataView(memory0).setInt32(ptr0 + 276, len26, true);
          dataView(memory0).setInt32(ptr0 + 272, ptr26, true);
          var {class: v27_0, key: v27_1, reconcile: v27_2, leaseMs: v27_3, reconcileAfterMs: v27_4, escalateAfterMs: v27_5, retentionMs: v27_6 } = v20_6;
          var val28 = v27_0;
          let enum28;
          switch (val28) {
            case 'read-only': {
              enum28 = 0;
              break;
            }
            case 'overwriting-write': {
              enum28 = 1;
              break;
            }
            case 'accumulating-write': {
              enum28 = 2;
              break;
            }
            case 'irreversible-external': {
              enum28 = 3;
              break;
            }
            default: {
              if ((v27_0) instanceof Error) {
                console.error(v27_0);
              }
              
              throw new TypeError(`"${val28}" is not one of the cases of effect-class`);
            }
          }
          dataView(memory0).setInt8(ptr0 + 280, enum28, true);
          var variant36 = v27_1;
          if (variant36 === null || variant36=== undefined) {
            dataView(memory0).setInt8(ptr0 + 284, 0, true);
          } else {
            const e = variant36;
            dataView(memory0).setInt8(ptr0 + 284, 1, true);
            var {only: v29_0, ignore: v29_1, identity: v29_2 } = e;
            var variant32 = v29_0;
            if (variant32 === null || variant32=== undefined) {
              dataView(memory0).setInt8(ptr0 + 288, 0, true);
            } else {
              const e = variant32;
              dataView(memory0).setInt8(ptr0 + 288, 1, true);
              var vec31 = e;
              var len31 = vec31.length;
              var result31 = realloc0(0, 0, 4, len31 * 8);
              for (let i = 0; i < vec31.length; i++) {
                const e = vec31[i];
                const base = result31 + i * 8;var ptr30 = utf8Encode(e, realloc0, memory0);
                var len30 = utf8EncodedLen;
                dataView(memory0).setInt32(base + 4, len30, true);
                dataView(memory0).setInt32(base + 0, ptr30, true);
              }
              dataView(memory0).setInt32(ptr0 + 296, len31, true);
              dataView(memory0).setInt32(ptr0 + 292, result31, true);
            }
            var vec34 = v29_1;
            var len34 = vec34.length;
            var result34 = realloc0(0, 0, 4, len34 * 8);
            for (let i = 0; i < vec34.length; i++) {
              const e = vec34[i];
              const base = result34 + i * 8;var ptr33 = utf8Encode(e, realloc0, memory0);
              var len33 = utf8EncodedLen;
              dataView(memory0).setInt32(base + 4, len33, true);
              dataView(memory0).setInt32(base + 0, ptr33, true);
            }
            dataView(memory0).setInt32(ptr0 + 304, len34, true);
            dataView(memory0).setInt32(ptr0 + 300, result34, true);
            var val35 = v29_2;
            let enum35;
            switch (val35) {
              case 'step': {
                enum35 = 0;
                break;
              }
              case 'run': {
                enum35 = 1;
                break;
              }
              case 'scope': {
                enum35 = 2;
                break;
              }
              default: {
                if ((v29_2) instanceof Error) {
                  console.error(v29_2);
                }
                
                throw new TypeError(`"${val35}" is not one of the cases of key-identity`);
              }
            }
            dataView(memory0).setInt8(ptr0 + 308, enum35, true);
          }
          var variant38 = v27_2;
          switch (variant38.tag) {
            case 'none': {
              dataView(memory0).setInt8(ptr0 + 312, 0, true);
              break;
            }
            case 'provider-idempotent': {
              dataView(memory0).setInt8(ptr0 + 312, 1, true);
              break;
            }
            case 'lookup': {
              const e = variant38.val;
              dataView(memory0).setInt8(ptr0 + 312, 2, true);
              var ptr37 = utf8Encode(e, realloc0, memory0);
              var len37 = utf8EncodedLen;
              dataView(memory0).setInt32(ptr0 + 320, len37, true);
              dataView(memory0).setInt32(ptr0 + 316, ptr37, true);
              break;
            }
            case 'manual': {
              dataView(memory0).setInt8(ptr0 + 312, 3, true);
              break;
            }
            default: {
              throw new TypeError(`invalid variant tag value \`${JSON.stringify(variant38.tag)}\` (received \`${variant38}\`) specified for \`ReconcilePath\``);
            }
          }
          dataView(memory0).setBigInt64(ptr0 + 328, toUint64(v27_3), true);
          dataView(memory0).setBigInt64(ptr0 + 336, toUint64(v27_4), true);
          dataView(memory0).setBigInt64(ptr0 + 344, toUint64(v27_5), true);
          dataView(memory0).setBigInt64(ptr0 + 352, toUint64(v27_6), true);
          break;
        }
        case 'heartbeat': {
          const e = variant62.val;
          dataView(memory0).setInt8(ptr0 + 224, 1, true);
          var {attempt: v39_0, owner: v39_1 } = e;
          dataView(memory0).setInt32(ptr0 + 232, toUint32(v39_0), true);
          var ptr40 = utf8Encode(v39_1, realloc0, memory0);
          var len40 = utf8EncodedLen;
          dataView(memory0).setInt32(ptr0 + 240, len40, true);
          dataView(memory0).setInt32(ptr0 + 236, ptr40, true);
          break;
        }
        case 'complete': {
          const e = variant62.val;
          dataView(memory0).setInt8(ptr0 + 224, 2, true);
          var {token: v41_0, resultJson: v41_1 } = e;
          var {attempt: v42_0, owner: v42_1 } = v41_0;
          dataView(memory0).setInt32(ptr0 + 232, toUint32(v42_0), true);
          var ptr43 = utf8Encode(v42_1, realloc0, memory0);
          var len43 = utf8EncodedLen;
          dataView(memory0).setInt32(ptr0 + 240, len43, true);
          dataView(memory0).setInt32(ptr0 + 236, ptr43, true);
          var ptr44 = utf8Encode(v41_1, realloc0, memory0);
          var len44 = utf8EncodedLen;
          dataView(memory0).setInt32(ptr0 + 248, len44, true);
          dataView(memory0).setInt32(ptr0 + 244, ptr44, true);
          break;
        }
        case 'fail-definite': {
          const e = variant62.val;
          dataView(memory0).setInt8(ptr0 + 224, 3, true);
          var {token: v45_0, reason: v45_1 } = e;
          var {attempt: v46_0, owner: v46_1 } = v45_0;
          dataView(memory0).setInt32(ptr0 + 232, toUint32(v46_0), true);
          var ptr47 = utf8Encode(v46_1, realloc0, memory0);
          var len47 = utf8EncodedLen;
          dataView(memory0).setInt32(ptr0 + 240, len47, true);
          dataView(memory0).setInt32(ptr0 + 236, ptr47, true);
          var ptr48 = utf8Encode(v45_1, realloc0, memory0);
          var len48 = utf8EncodedLen;
          dataView(memory0).setInt32(ptr0 + 248, len48, true);
          dataView(memory0).setInt32(ptr0 + 244, ptr48, true);
          break;
        }
        case 'fail-ambiguous': {
          const e = variant62.val;
          dataView(memory0).setInt8(ptr0 + 224, 4, true);
          var {token: v49_0, reason: v49_1 } = e;
          var {attempt: v50_0, owner: v50_1 } = v49_0;
          dataView(memory0).setInt32(ptr0 + 232, toUint32(v50_0), true);
          var ptr51 = utf8Encode(v50_1, realloc0, memory0);
          var len51 = utf8EncodedLen;
          dataView(memory0).setInt32(ptr0 + 240, len51, true);
          dataView(memory0).setInt32(ptr0 + 236, ptr51, true);
          var ptr52 = utf8Encode(v49_1, realloc0, memory0);
          var len52 = utf8EncodedLen;
          dataView(memory0).setInt32(ptr0 + 248, len52, true);
          dataView(memory0).setInt32(ptr0 + 244, ptr52, true);
          break;
        }
        case 'sweep': {
          dataView(memory0).setInt8(ptr0 + 224, 5, true);
          break;
        }
        case 'reconciled': {
          const e = variant62.val;
          dataView(memory0).setInt8(ptr0 + 224, 6, true);
          var {attempt: v53_0, verdict: v53_1 } = e;
          dataView(memory0).setInt32(ptr0 + 232, toUint32(v53_0), true);
          var variant56 = v53_1;
          switch (variant56.tag) {
            case 'happened': {
              const e = variant56.val;
              dataView(memory0).setInt8(ptr0 + 236, 0, true);
              var ptr54 = utf8Encode(e, realloc0, memory0);
              var len54 = utf8EncodedLen;
              dataView(memory0).setInt32(ptr0 + 244, len54, true);
              dataView(memory0).setInt32(ptr0 + 240, ptr54, true);
              break;
            }
            case 'not-happened': {
              dataView(memory0).setInt8(ptr0 + 236, 1, true);
              break;
            }
            case 'unknown': {
              const e = variant56.val;
              dataView(memory0).setInt8(ptr0 + 236, 2, true);
              var ptr55 = utf8Encode(e, realloc0, memory0);
              var len55 = utf8EncodedLen;
              dataView(memory0).setInt32(ptr0 + 244, len55, true);
              dataView(memory0).setInt32(ptr0 + 240, ptr55, true);
              break;
            }
            default: {
              throw new TypeError(`invalid variant tag value \`${JSON.stringify(variant56.tag)}\` (received \`${variant56}\`) specified for \`ReconcileVerdict\``);
            }
          }
          break;
        }
        case 'resolve': {
          const e = variant62.val;
          dataView(memory0).setInt8(ptr0 + 224, 7, true);
          var {settlement: v57_0, by: v57_1, note: v57_2 } = e;
          var variant59 = v57_0;
          switch (variant59.tag) {
            case 'happened': {
              const e = variant59.val;
              dataView(memory0).setInt8(ptr0 + 232, 0, true);
              var ptr58 = utf8Encode(e, realloc0, memory0);
              var len58 = utf8EncodedLen;
              dataView(memory0).setInt32(ptr0 + 240, len58, true);
              dataView(memory0).setInt32(ptr0 + 236, ptr58, true);
              break;
            }
            case 'not-happened': {
              dataView(memory0).setInt8(ptr0 + 232, 1, true);
              break;
            }
            default: {
              throw new TypeError(`invalid variant tag value \`${JSON.stringify(variant59.tag)}\` (received \`${variant59}\`) specified for \`Settlement\``);
            }
          }
          var ptr60 = utf8Encode(v57_1, realloc0, memory0);
          var len60 = utf8EncodedLen;
          dataView(memory0).setInt32(ptr0 + 248, len60, true);
          dataView(memory0).setInt32(ptr0 + 244, ptr60, true);
          var ptr61 = utf8Encode(v57_2, realloc0, memory0);
          var len61 = utf8EncodedLen;
          dataView(memory0).setInt32(ptr0 + 256, len61, true);
          dataView(memory0).setInt32(ptr0 + 252, ptr61, true);
          break;
        }
        case 'purge': {
          dataView(memory0).setInt8(ptr0 + 224, 8, true);
          break;
        }
        default: {
          throw new TypeError(`invalid variant tag value \`${JSON.stringify(variant62.tag)}\` (received \`${variant62}\`) specified for \`Event\``);
        }
      }
      dataView(memory0).setBigInt64(ptr0 + 360, toUint64(arg2), true);
      const ret = ledger010Handle(ptr0);
      let variant126;
      switch (dataView(memory0).getUint8(ret + 0, true)) {
        case 0: {
          let variant100;
          switch (dataView(memory0).getUint8(ret + 8, true)) {
            case 0: {
              variant100 = undefined;
              break;
            }
            case 1: {
              let variant99;
              switch (dataView(memory0).getUint8(ret + 16, true)) {
                case 0: {
                  var ptr63 = dataView(memory0).getInt32(ret + 24, true);
                  var len63 = dataView(memory0).getInt32(ret + 28, true);
                  var result63 = utf8Decoder.decode(new Uint8Array(memory0.buffer, ptr63, len63));
                  var ptr64 = dataView(memory0).getInt32(ret + 32, true);
                  var len64 = dataView(memory0).getInt32(ret + 36, true);
                  var result64 = utf8Decoder.decode(new Uint8Array(memory0.buffer, ptr64, len64));
                  var ptr65 = dataView(memory0).getInt32(ret + 40, true);
                  var len65 = dataView(memory0).getInt32(ret + 44, true);
                  var result65 = utf8Decoder.decode(new Uint8Array(memory0.buffer, ptr65, len65));
                  var ptr66 = dataView(memory0).getInt32(ret + 48, true);
                  var len66 = dataView(memory0).getInt32(ret + 52, true);
                  var result66 = utf8Decoder.decode(new Uint8Array(memory0.buffer, ptr66, len66));
                  var ptr67 = dataView(memory0).getInt32(ret + 56, true);
                  var len67 = dataView(memory0).getInt32(ret + 60, true);
                  var result67 = utf8Decoder.decode(new Uint8Array(memory0.buffer, ptr67, len67));
                  let enum68;
                  switch (dataView(memory0).getUint8(ret + 64, true)) {
                    case 0: {
                      enum68 = 'pending';
                      break;
                    }
                    case 1: {
                      enum68 = 'done';
                      break;
                    }
                    case 2: {
                      enum68 = 'failed';
                      break;
                    }
                    case 3: {
                      enum68 = 'in-doubt';
                      break;
                    }
                    case 4: {
                      enum68 = 'escalated';
                      break;
                    }
                    default: {
                      throw new TypeError('invalid discriminant specified for EntryState');
                    }
                  }
                  var ptr69 = dataView(memory0).getInt32(ret + 84, true);
                  var len69 = dataView(memory0).getInt32(ret + 88, true);
                  var result69 = utf8Decoder.decode(new Uint8Array(memory0.buffer, ptr69, len69));
                  let variant70;
                  switch (dataView(memory0).getUint8(ret + 120, true)) {
                    case 0: {
                      variant70 = undefined;
                      break;
                    }
                    case 1: {
                      variant70 = BigInt.asUintN(64, dataView(memory0).getBigInt64(ret + 128, true));
                      break;
                    }
                    default: {
                      throw new TypeError('invalid variant discriminant for option');
                    }
                  }
                  let variant71;
                  switch (dataView(memory0).getUint8(ret + 136, true)) {
                    case 0: {
                      variant71 = undefined;
                      break;
                    }
                    case 1: {
                      variant71 = BigInt.asUintN(64, dataView(memory0).getBigInt64(ret + 144, true));
                      break;
                    }
                    default: {
                      throw new TypeError('invalid variant discriminant for option');
                    }
                  }
                  let variant73;
                  switch (dataView(memory0).getUint8(ret + 156, true)) {
                    case 0: {
                      variant73 = undefined;
                      break;
                    }
                    case 1: {
                      var ptr72 = dataView(memory0).getInt32(ret + 160, true);
                      var len72 = dataView(memory0).getInt32(ret + 164, true);
                      var result72 = utf8Decoder.decode(new Uint8Array(memory0.buffer, ptr72, len72));
                      variant73 = result72;
                      break;
                    }
                    default: {
                      throw new TypeError('invalid variant discriminant for option');
                    }
                  }
                  let variant75;
                  switch (dataView(memory0).getUint8(ret + 168, true)) {
                    case 0: {
                      variant75 = undefined;
                      break;
                    }
                    case 1: {
                      var ptr74 = dataView(memory0).getInt32(ret + 172, true);
                      var len74 = dataView(memory0).getInt32(ret + 176, true);
                      var result74 = utf8Decoder.decode(new Uint8Array(memory0.buffer, ptr74, len74));
                      variant75 = result74;
                      break;
                    }
                    default: {
                      throw new TypeError('invalid variant discriminant for option');
                    }
                  }
                  let variant77;
                  switch (dataView(memory0).getUint8(ret + 180, true)) {
                    case 0: {
                      variant77 = undefined;
                      break;
                    }
                    case 1: {
                      var ptr76 = dataView(memory0).getInt32(ret + 184, true);
                      var len76 = dataView(memory0).getInt32(ret + 188, true);
                      var result76 = utf8Decoder.decode(new Uint8Array(memory0.buffer, ptr76, len76));
                      variant77 = result76;
                      break;
                    }
                    default: {
                      throw new TypeError('invalid variant discriminant for option');
                    }
                  }
                  let variant79;
                  switch (dataView(memory0).getUint8(ret + 192, true)) {
                    case 0: {
                      variant79= {
                        tag: 'none',
                      };
                      break;
                    }
                    case 1: {
                      variant79= {
                        tag: 'provider-idempotent',
                      };
                      break;
                    }
                    case 2: {
                      var ptr78 = dataView(memory0).getInt32(ret + 196, true);
                      var len78 = dataView(memory0).getInt32(ret + 200, true);
                      var result78 = utf8Decoder.decode(new Uint8Array(memory0.buffer, ptr78, len78));
                      variant79= {
                        tag: 'lookup',
                        val: result78
                      };
                      break;
                    }
                    case 3: {
                      variant79= {
                        tag: 'manual',
                      };
                      break;
                    }
                    default: {
                      throw new TypeError('invalid variant discriminant for ReconcilePath');
                    }
                  }
                  variant99= {
                    tag: 'insert',
                    val: {
                      scope: result63,
                      key: result64,
                      tool: result65,
                      fingerprint: result66,
                      argsCanonical: result67,
                      state: enum68,
                      version: BigInt.asUintN(64, dataView(memory0).getBigInt64(ret + 72, true)),
                      attempt: dataView(memory0).getInt32(ret + 80, true) >>> 0,
                      owner: result69,
                      createdAt: BigInt.asUintN(64, dataView(memory0).getBigInt64(ret + 96, true)),
                      updatedAt: BigInt.asUintN(64, dataView(memory0).getBigInt64(ret + 104, true)),
                      leaseUntil: BigInt.asUintN(64, dataView(memory0).getBigInt64(ret + 112, true)),
                      inDoubtSince: variant70,
                      nextReconcileAt: variant71,
                      reconcileAttempts: dataView(memory0).getInt32(ret + 152, true) >>> 0,
                      resultJson: variant73,
                      reason: variant75,
                      resolvedBy: variant77,
                      reconcile: variant79,
                      leaseMs: BigInt.asUintN(64, dataView(memory0).getBigInt64(ret + 208, true)),
                      reconcileAfterMs: BigInt.asUintN(64, dataView(memory0).getBigInt64(ret + 216, true)),
                      escalateAfterMs: BigInt.asUintN(64, dataView(memory0).getBigInt64(ret + 224, true)),
                      retentionMs: BigInt.asUintN(64, dataView(memory0).getBigInt64(ret + 232, true)),
                    }
                  };
                  break;
                }
                case 1: {
                  var ptr80 = dataView(memory0).getInt32(ret + 32, true);
                  var len80 = dataView(memory0).getInt32(ret + 36, true);
                  var result80 = utf8Decoder.decode(new Uint8Array(memory0.buffer, ptr80, len80));
                  var ptr81 = dataView(memory0).getInt32(ret + 40, true);
                  var len81 = dataView(memory0).getInt32(ret + 44, true);
                  var result81 = utf8Decoder.decode(new Uint8Array(memory0.buffer, ptr81, len81));
                  var ptr82 = dataView(memory0).getInt32(ret + 48, true);
                  var len82 = dataView(memory0).getInt32(ret + 52, true);
                  var result82 = utf8Decoder.decode(new Uint8Array(memory0.buffer, ptr82, len82));
                  var ptr83 = dataView(memory0).getInt32(ret + 56, true);
                  var len83 = dataView(memory0).getInt32(ret + 60, true);
                  var result83 = utf8Decoder.decode(new Uint8Array(memory0.buffer, ptr83, len83));
                  var ptr84 = dataView(memory0).getInt32(ret + 64, true);
                  var len84 = dataView(memory0).getInt32(ret + 68, true);
                  var result84 = utf8Decoder.decode(new Uint8Array(memory0.buffer, ptr84, len84));
                  let enum85;
                  switch (dataView(memory0).getUint8(ret + 72, true)) {
                    case 0: {
                      enum85 = 'pending';
                      break;
                    }
                    case 1: {
                      enum85 = 'done';
                      break;
                    }
                    case 2: {
                      enum85 = 'failed';
                      break;
                    }
                    case 3: {
                      enum85 = 'in-doubt';
                      break;
                    }
                    case 4: {
                      enum85 = 'escalated';
                      break;
                    }
                    default: {
                      throw new TypeError('invalid discriminant specified for EntryState');
                    }
                  }
                  var ptr86 = dataView(memory0).getInt32(ret + 92, true);
                  var len86 = dataView(memory0).getInt32(ret + 96, true);
                  var result86 = utf8Decoder.decode(new Uint8Array(memory0.buffer, ptr86, len86));
                  let variant87;
                  switch (dataView(memory0).getUint8(ret + 128, true)) {
                    case 0: {
                      variant87 = undefined;
                      break;
                    }
                    case 1: {
                      variant87 = BigInt.asUintN(64, dataView(memory0).getBigInt64(ret + 136, true));
                      break;
                    }
                    default: {
                      throw new TypeError('invalid variant discriminant for option');
                    }
                  }
                  let variant88;
                  switch (dataView(memory0).getUint8(ret + 144, true)) {
                    case 0: {
                      variant88 = undefined;
                      break;
                    }
                    case 1: {
                      variant88 = BigInt.asUintN(64, dataView(memory0).getBigInt64(ret + 152, true));
                      break;
                    }
                    default: {
                      throw new TypeError('invalid variant discriminant for option');
                    }
                  }
                  let variant90;
                  switch (dataView(memory0).getUint8(ret + 164, true)) {
                    case 0: {
                      variant90 = undefined;
                      break;
                    }
                    case 1: {
                      var ptr89 = dataView(memory0).getInt32(ret + 168, true);
                      var len89 = dataView(memory0).getInt32(ret + 172, true);
                      var result89 = utf8Decoder.decode(new Uint8Array(memory0.buffer, ptr89, len89));
                      variant90 = result89;
                      break;
                    }
                    default: {
                      throw new TypeError('invalid variant discriminant for option');
                    }
                  }
                  let variant92;
                  switch (dataView(memory0).getUint8(ret + 176, true)) {
                    case 0: {
                      variant92 = undefined;
                      break;
                    }
                    case 1: {
                      var ptr91 = dataView(memory0).getInt32(ret + 180, true);
                      var len91 = dataView(memory0).getInt32(ret + 184, true);
                      var result91 = utf8Decoder.decode(new Uint8Array(memory0.buffer, ptr91, len91));
                      variant92 = result91;
                      break;
                    }
                    default: {
                      throw new TypeError('invalid variant discriminant for option');
                    }
                  }
                  let variant94;
                  switch (dataView(memory0).getUint8(ret + 188, true)) {
                    case 0: {
                      variant94 = undefined;
                      break;
                    }
                    case 1: {
                      var ptr93 = dataView(memory0).getInt32(ret + 192, true);
                      var len93 = dataView(memory0).getInt32(ret + 196, true);
                      var result93 = utf8Decoder.decode(new Uint8Array(memory0.buffer, ptr93, len93));
                      variant94 = result93;
                      break;
                    }
                    default: {
                      throw new TypeError('invalid variant discriminant for option');
                    }
                  }
                  let variant96;
                  switch (dataView(memory0).getUint8(ret + 200, true)) {
                    case 0: {
                      variant96= {
                        tag: 'none',
                      };
                      break;
                    }
                    case 1: {
                      variant96= {
                        tag: 'provider-idempotent',
                      };
                      break;
                    }
                    case 2: {
                      var ptr95 = dataView(memory0).getInt32(ret + 204, true);
                      var len95 = dataView(memory0).getInt32(ret + 208, true);
                      var result95 = utf8Decoder.decode(new Uint8Array(memory0.buffer, ptr95, len95));
                      variant96= {
                        tag: 'lookup',
                        val: result95
                      };
                      break;
                    }
                    case 3: {
                      variant96= {
                        tag: 'manual',
                      };
                      break;
                    }
                    default: {
                      throw new TypeError('invalid variant discriminant for ReconcilePath');
                    }
                  }
                  variant99= {
                    tag: 'update',
                    val: {
                      expectedVersion: BigInt.asUintN(64, dataView(memory0).getBigInt64(ret + 24, true)),
                      entry: {
                        scope: result80,
                        key: result81,
                        tool: result82,
                        fingerprint: result83,
                        argsCanonical: result84,
                        state: enum85,
                        version: BigInt.asUintN(64, dataView(memory0).getBigInt64(ret + 80, true)),
                        attempt: dataView(memory0).getInt32(ret + 88, true) >>> 0,
                        owner: result86,
                        createdAt: BigInt.asUintN(64, dataView(memory0).getBigInt64(ret + 104, true)),
                        updatedAt: BigInt.asUintN(64, dataView(memory0).getBigInt64(ret + 112, true)),
                        leaseUntil: BigInt.asUintN(64, dataView(memory0).getBigInt64(ret + 120, true)),
                        inDoubtSince: variant87,
                        nextReconcileAt: variant88,
                        reconcileAttempts: dataView(memory0).getInt32(ret + 160, true) >>> 0,
                        resultJson: variant90,
                        reason: variant92,
                        resolvedBy: variant94,
                        reconcile: variant96,
                        leaseMs: BigInt.asUintN(64, dataView(memory0).getBigInt64(ret + 216, true)),
                        reconcileAfterMs: BigInt.asUintN(64, dataView(memory0).getBigInt64(ret + 224, true)),
                        escalateAfterMs: BigInt.asUintN(64, dataView(memory0).getBigInt64(ret + 232, true)),
                        retentionMs: BigInt.asUintN(64, dataView(memory0).getBigInt64(ret + 240, true)),
                      },
                    }
                  };
                  break;
                }
                case 2: {
                  var ptr97 = dataView(memory0).getInt32(ret + 24, true);
                  var len97 = dataView(memory0).getInt32(ret + 28, true);
                  var result97 = utf8Decoder.decode(new Uint8Array(memory0.buffer, ptr97, len97));
                  var ptr98 = dataView(memory0).getInt32(ret + 32, true);
                  var len98 = dataView(memory0).getInt32(ret + 36, true);
                  var result98 = utf8Decoder.decode(new Uint8Array(memory0.buffer, ptr98, len98));
                  variant99= {
                    tag: 'delete',
                    val: {
                      scope: result97,
                      key: result98,
                      expectedVersion: BigInt.asUintN(64, dataView(memory0).getBigInt64(ret + 40, true)),
                    }
                  };
                  break;
                }
                default: {
                  throw new TypeError('invalid variant discriminant for Write');
                }
              }
              variant100 = variant99;
              break;
            }
            default: {
              throw new TypeError('invalid variant discriminant for option');
            }
          }
          let variant121;
          switch (dataView(memory0).getUint8(ret + 248, true)) {
            case 0: {
              var ptr101 = dataView(memory0).getInt32(ret + 260, true);
              var len101 = dataView(memory0).getInt32(ret + 264, true);
              var result101 = utf8Decoder.decode(new Uint8Array(memory0.buffer, ptr101, len101));
              variant121= {
                tag: 'execute',
                val: {
                  attempt: dataView(memory0).getInt32(ret + 256, true) >>> 0,
                  owner: result101,
                }
              };
              break;
            }
            case 1: {
              var ptr102 = dataView(memory0).getInt32(ret + 256, true);
              var len102 = dataView(memory0).getInt32(ret + 260, true);
              var result102 = utf8Decoder.decode(new Uint8Array(memory0.buffer, ptr102, len102));
              variant121= {
                tag: 'replay',
                val: {
                  resultJson: result102,
                  attempt: dataView(memory0).getInt32(ret + 264, true) >>> 0,
                  recordedAt: BigInt.asUintN(64, dataView(memory0).getBigInt64(ret + 272, true)),
                }
              };
              break;
            }
            case 2: {
              var ptr103 = dataView(memory0).getInt32(ret + 256, true);
              var len103 = dataView(memory0).getInt32(ret + 260, true);
              var result103 = utf8Decoder.decode(new Uint8Array(memory0.buffer, ptr103, len103));
              let enum104;
              switch (dataView(memory0).getUint8(ret + 264, true)) {
                case 0: {
                  enum104 = 'pending';
                  break;
                }
                case 1: {
                  enum104 = 'done';
                  break;
                }
                case 2: {
                  enum104 = 'failed';
                  break;
                }
                case 3: {
                  enum104 = 'in-doubt';
                  break;
                }
                case 4: {
                  enum104 = 'escalated';
                  break;
                }
                default: {
                  throw new TypeError('invalid discriminant specified for EntryState');
                }
              }
              variant121= {
                tag: 'in-progress',
                val: {
                  owner: result103,
                  state: enum104,
                  retryAfterMs: BigInt.asUintN(64, dataView(memory0).getBigInt64(ret + 272, true)),
                }
              };
              break;
            }
            case 3: {
              var ptr105 = dataView(memory0).getInt32(ret + 256, true);
              var len105 = dataView(memory0).getInt32(ret + 260, true);
              var result105 = utf8Decoder.decode(new Uint8Array(memory0.buffer, ptr105, len105));
              var ptr106 = dataView(memory0).getInt32(ret + 264, true);
              var len106 = dataView(memory0).getInt32(ret + 268, true);
              var result106 = utf8Decoder.decode(new Uint8Array(memory0.buffer, ptr106, len106));
              var ptr107 = dataView(memory0).getInt32(ret + 272, true);
              var len107 = dataView(memory0).getInt32(ret + 276, true);
              var result107 = utf8Decoder.decode(new Uint8Array(memory0.buffer, ptr107, len107));
              var ptr108 = dataView(memory0).getInt32(ret + 280, true);
              var len108 = dataView(memory0).getInt32(ret + 284, true);
              var result108 = utf8Decoder.decode(new Uint8Array(memory0.buffer, ptr108, len108));
              let variant110;
              switch (dataView(memory0).getUint8(ret + 292, true)) {
                case 0: {
                  variant110= {
                    tag: 'none',
                  };
                  break;
                }
                case 1: {
                  variant110= {
                    tag: 'provider-idempotent',
                  };
                  break;
                }
                case 2: {
                  var ptr109 = dataView(memory0).getInt32(ret + 296, true);
                  var len109 = dataView(memory0).getInt32(ret + 300, true);
                  var result109 = utf8Decoder.decode(new Uint8Array(memory0.buffer, ptr109, len109));
                  variant110= {
                    tag: 'lookup',
                    val: result109
                  };
                  break;
                }
                case 3: {
                  variant110= {
                    tag: 'manual',
                  };
                  break;
                }
                default: {
                  throw new TypeError('invalid variant discriminant for ReconcilePath');
                }
              }
              variant121= {
                tag: 'reconcile',
                val: {
                  scope: result105,
                  key: result106,
                  tool: result107,
                  argsCanonical: result108,
                  attempt: dataView(memory0).getInt32(ret + 288, true) >>> 0,
                  path: variant110,
                  inDoubtSince: BigInt.asUintN(64, dataView(memory0).getBigInt64(ret + 304, true)),
                  escalateAt: BigInt.asUintN(64, dataView(memory0).getBigInt64(ret + 312, true)),
                }
              };
              break;
            }
            case 4: {
              var ptr111 = dataView(memory0).getInt32(ret + 256, true);
              var len111 = dataView(memory0).getInt32(ret + 260, true);
              var result111 = utf8Decoder.decode(new Uint8Array(memory0.buffer, ptr111, len111));
              var ptr112 = dataView(memory0).getInt32(ret + 264, true);
              var len112 = dataView(memory0).getInt32(ret + 268, true);
              var result112 = utf8Decoder.decode(new Uint8Array(memory0.buffer, ptr112, len112));
              var ptr113 = dataView(memory0).getInt32(ret + 272, true);
              var len113 = dataView(memory0).getInt32(ret + 276, true);
              var result113 = utf8Decoder.decode(new Uint8Array(memory0.buffer, ptr113, len113));
              var ptr114 = dataView(memory0).getInt32(ret + 284, true);
              var len114 = dataView(memory0).getInt32(ret + 288, true);
              var result114 = utf8Decoder.decode(new Uint8Array(memory0.buffer, ptr114, len114));
              variant121= {
                tag: 'escalated',
                val: {
                  scope: result111,
                  key: result112,
                  tool: result113,
                  attempt: dataView(memory0).getInt32(ret + 280, true) >>> 0,
                  reason: result114,
                  inDoubtSince: BigInt.asUintN(64, dataView(memory0).getBigInt64(ret + 296, true)),
                }
              };
              break;
            }
            case 5: {
              var ptr115 = dataView(memory0).getInt32(ret + 256, true);
              var len115 = dataView(memory0).getInt32(ret + 260, true);
              var result115 = utf8Decoder.decode(new Uint8Array(memory0.buffer, ptr115, len115));
              var ptr116 = dataView(memory0).getInt32(ret + 264, true);
              var len116 = dataView(memory0).getInt32(ret + 268, true);
              var result116 = utf8Decoder.decode(new Uint8Array(memory0.buffer, ptr116, len116));
              var ptr117 = dataView(memory0).getInt32(ret + 272, true);
              var len117 = dataView(memory0).getInt32(ret + 276, true);
              var result117 = utf8Decoder.decode(new Uint8Array(memory0.buffer, ptr117, len117));
              var ptr118 = dataView(memory0).getInt32(ret + 280, true);
              var len118 = dataView(memory0).getInt32(ret + 284, true);
              var result118 = utf8Decoder.decode(new Uint8Array(memory0.buffer, ptr118, len118));
              variant121= {
                tag: 'conflict',
                val: {
                  key: result115,
                  pointer: result116,
                  storedFingerprint: result117,
                  givenFingerprint: result118,
                }
              };
              break;
            }
            case 6: {
              variant121= {
                tag: 'pass-through',
              };
              break;
            }
            case 7: {
              let enum119;
              switch (dataView(memory0).getUint8(ret + 256, true)) {
                case 0: {
                  enum119 = 'pending';
                  break;
                }
                case 1: {
                  enum119 = 'done';
                  break;
                }
                case 2: {
                  enum119 = 'failed';
                  break;
                }
                case 3: {
                  enum119 = 'in-doubt';
                  break;
                }
                case 4: {
                  enum119 = 'escalated';
                  break;
                }
                default: {
                  throw new TypeError('invalid discriminant specified for EntryState');
                }
              }
              variant121= {
                tag: 'recorded',
                val: enum119
              };
              break;
            }
            case 8: {
              variant121= {
                tag: 'purged',
              };
              break;
            }
            case 9: {
              let variant120;
              switch (dataView(memory0).getUint8(ret + 256, true)) {
                case 0: {
                  variant120 = undefined;
                  break;
                }
                case 1: {
                  variant120 = BigInt.asUintN(64, dataView(memory0).getBigInt64(ret + 264, true));
                  break;
                }
                default: {
                  throw new TypeError('invalid variant discriminant for option');
                }
              }
              variant121= {
                tag: 'idle',
                val: variant120
              };
              break;
            }
            default: {
              throw new TypeError('invalid variant discriminant for Outcome');
            }
          }
          variant126= {
            tag: 'ok',
            val: {
              write: variant100,
              outcome: variant121,
            }
          };
          break;
        }
        case 1: {
          let enum122;
          switch (dataView(memory0).getUint8(ret + 8, true)) {
            case 0: {
              enum122 = 'not-found';
              break;
            }
            case 1: {
              enum122 = 'stale-token';
              break;
            }
            case 2: {
              enum122 = 'invalid-state';
              break;
            }
            case 3: {
              enum122 = 'already-settled';
              break;
            }
            case 4: {
              enum122 = 'retention-not-reached';
              break;
            }
            case 5: {
              enum122 = 'invalid-request';
              break;
            }
            default: {
              throw new TypeError('invalid discriminant specified for LedgerErrorKind');
            }
          }
          let variant124;
          switch (dataView(memory0).getUint8(ret + 9, true)) {
            case 0: {
              variant124 = undefined;
              break;
            }
            case 1: {
              let enum123;
              switch (dataView(memory0).getUint8(ret + 10, true)) {
                case 0: {
                  enum123 = 'pending';
                  break;
                }
                case 1: {
                  enum123 = 'done';
                  break;
                }
                case 2: {
                  enum123 = 'failed';
                  break;
                }
                case 3: {
                  enum123 = 'in-doubt';
                  break;
                }
                case 4: {
                  enum123 = 'escalated';
                  break;
                }
                default: {
                  throw new TypeError('invalid discriminant specified for EntryState');
                }
              }
              variant124 = enum123;
              break;
            }
            default: {
              throw new TypeError('invalid variant discriminant for option');
            }
          }
          var ptr125 = dataView(memory0).getInt32(ret + 12, true);
          var len125 = dataView(memory0).getInt32(ret + 16, true);
          var result125 = utf8Decoder.decode(new Uint8Array(memory0.buffer, ptr125, len125));
          variant126= {
            tag: 'err',
            val: {
              kind: enum122,
              state: variant124,
              message: result125,
            }
          };
          break;
        }
        default: {
          throw new TypeError('invalid variant discriminant for expected');
        }
      }
      const retVal = variant126;
      postReturn11(ret);
      if (typeof retVal === 'object' && retVal.tag === 'err') {
        throw new ComponentError(retVal.val);
      }
      return retVal.val;
    }
    canonical010MaxInputBytes = exports0['oncely:core/canonical@0.1.0#max-input-bytes'];
    canonical010MaxDepth = exports0['oncely:core/canonical@0.1.0#max-depth'];
    canonical010Canonicalize = exports0['oncely:core/canonical@0.1.0#canonicalize'];
    canonical010CanonicalizeBytes = exports0['oncely:core/canonical@0.1.0#canonicalize-bytes'];
    keys010Derive = exports0['oncely:core/keys@0.1.0#derive'];
    keys010Key = exports0['oncely:core/keys@0.1.0#key'];
    keys010DeriveMany = exports0['oncely:core/keys@0.1.0#derive-many'];
    keys010DefaultSpec = exports0['oncely:core/keys@0.1.0#default-spec'];
    keys010Explain = exports0['oncely:core/keys@0.1.0#explain'];
    policy010Classify = exports0['oncely:core/policy@0.1.0#classify'];
    policy010DefaultPolicy = exports0['oncely:core/policy@0.1.0#default-policy'];
    policy010ParsePolicy = exports0['oncely:core/policy@0.1.0#parse-policy'];
    policy010ResolveTool = exports0['oncely:core/policy@0.1.0#resolve-tool'];
    policy010CheckManifest = exports0['oncely:core/policy@0.1.0#check-manifest'];
    ledger010Prepare = exports0['oncely:core/ledger@0.1.0#prepare'];
    ledger010Handle = exports0['oncely:core/ledger@0.1.0#handle'];
    const canonical010 = {
      canonicalize: canonicalize,
      canonicalizeBytes: canonicalizeBytes,
      maxDepth: maxDepth,
      maxInputBytes: maxInputBytes,
      
    };
    const keys010 = {
      defaultSpec: defaultSpec,
      derive: derive,
      deriveMany: deriveMany,
      explain: explain,
      key: key,
      
    };
    const ledger010 = {
      handle: handle,
      prepare: prepare,
      
    };
    const policy010 = {
      checkManifest: checkManifest,
      classify: classify,
      defaultPolicy: defaultPolicy,
      parsePolicy: parsePolicy,
      resolveTool: resolveTool,
      
    };
    
    return { canonical: canonical010, keys: keys010, ledger: ledger010, policy: policy010, 'oncely:core/canonical@0.1.0': canonical010, 'oncely:core/keys@0.1.0': keys010, 'oncely:core/ledger@0.1.0': ledger010, 'oncely:core/policy@0.1.0': policy010,  };
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
